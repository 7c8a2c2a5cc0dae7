/**
 * The bottom of rvt-core: what every object package needs (the verbs errors, the spinning lock, the device as
 * {@link io.rvt.core.base.CoreDevice}) and nothing that names an object type. The object packages ({@code mr}, then
 * {@code ah}, {@code cq}, {@code srq}, {@code mcast}, then {@code qp}) stand on it, and {@code io.rvt.core}'s
 * {@code RvtDevice}, the factory that knows them all, on top; {@code jdeps} sees no package cycle (issue 28, item 6).
 */
package io.rvt.core.base;
