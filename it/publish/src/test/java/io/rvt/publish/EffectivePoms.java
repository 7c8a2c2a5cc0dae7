package io.rvt.publish;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.maven.model.Dependency;
import org.apache.maven.model.Model;
import org.apache.maven.model.Parent;
import org.apache.maven.model.Repository;
import org.apache.maven.model.building.DefaultModelBuilderFactory;
import org.apache.maven.model.building.DefaultModelBuildingRequest;
import org.apache.maven.model.building.FileModelSource;
import org.apache.maven.model.building.ModelBuildingException;
import org.apache.maven.model.building.ModelBuildingRequest;
import org.apache.maven.model.building.ModelSource;
import org.apache.maven.model.resolution.ModelResolver;
import org.apache.maven.model.resolution.UnresolvableModelException;

/**
 * A deployed pom's effective model, built by Maven's own model builder as a consumer's Maven (or a repository
 * manager) builds it: parents from the staging repository, imported BOMs from the local repository. Inheritance is
 * Maven's, so an inherited {@code url} or {@code scm} carries the appended module path exactly when Maven appends
 * it.
 */
final class EffectivePoms {
    private final StagingRepository staging;
    private final Path localRepository;

    EffectivePoms(StagingRepository staging, Path localRepository) {
        this.staging = staging;
        this.localRepository = localRepository;
    }

    /**
     * @param pom a deployed pom file
     * @return its effective model
     * @throws IllegalStateException naming the pom and Maven's problems if it does not build
     */
    Model of(Path pom) {
        ModelBuildingRequest request = new DefaultModelBuildingRequest()
                .setPomFile(pom.toFile())
                .setModelResolver(new Resolver())
                .setValidationLevel(ModelBuildingRequest.VALIDATION_LEVEL_MINIMAL)
                .setSystemProperties(System.getProperties())
                .setProcessPlugins(false)
                .setTwoPhaseBuilding(false);
        try {
            return new DefaultModelBuilderFactory().newInstance().build(request).getEffectiveModel();
        } catch (ModelBuildingException e) {
            throw new IllegalStateException("the deployed " + pom.getFileName() + " does not build: "
                    + e.getProblems(), e);
        }
    }

    /** Parents and BOMs: the staging repository first, then the local one. */
    private final class Resolver implements ModelResolver {
        @Override
        public ModelSource resolveModel(String groupId, String artifactId, String version)
                throws UnresolvableModelException {
            Optional<Path> staged = staging.file(groupId, artifactId, version, "", "pom");
            if (staged.isPresent()) {
                return new FileModelSource(staged.get().toFile());
            }
            Path local = localRepository.resolve(groupId.replace('.', '/')).resolve(artifactId).resolve(version)
                    .resolve(artifactId + "-" + version + ".pom");
            if (Files.isRegularFile(local)) {
                return new FileModelSource(local.toFile());
            }
            throw new UnresolvableModelException("neither staged nor in " + localRepository, groupId, artifactId,
                    version);
        }

        @Override
        public ModelSource resolveModel(Parent parent) throws UnresolvableModelException {
            return resolveModel(parent.getGroupId(), parent.getArtifactId(), parent.getVersion());
        }

        @Override
        public ModelSource resolveModel(Dependency dependency) throws UnresolvableModelException {
            return resolveModel(dependency.getGroupId(), dependency.getArtifactId(), dependency.getVersion());
        }

        @Override
        public void addRepository(Repository repository) {
            // only the two repositories above
        }

        @Override
        public void addRepository(Repository repository, boolean replace) {
            // only the two repositories above
        }

        @Override
        public ModelResolver newCopy() {
            return this;
        }
    }
}
