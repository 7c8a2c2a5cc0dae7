package io.rvt.cm.impl;

import io.rvt.api.Gid;

/** A peer's communication ID, QP or LID, as the CM's tables and address-handle cache key it: (GID, number). */
final class RemoteKey {
    final Gid gid;
    final int value;

    RemoteKey(Gid gid, int value) {
        this.gid = gid;
        this.value = value;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RemoteKey && ((RemoteKey) o).value == value && ((RemoteKey) o).gid.equals(gid);
    }

    @Override
    public int hashCode() {
        return gid.hashCode() * 31 + value;
    }
}
