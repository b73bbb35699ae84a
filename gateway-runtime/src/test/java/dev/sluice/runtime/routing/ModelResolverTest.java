package dev.sluice.runtime.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.HostContext;
import dev.sluice.api.ModelInfo;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderExecutor;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Model strings to routes: {@code provider/model}, bare models, custom providers (SPEC API-1, DM-2b). */
@SuppressWarnings("deprecation") // the positional forms kept for compiled plugins are tested too
class ModelResolverTest {

    private static final ProviderExecutor BUILT_IN_EXECUTOR = call -> {
        throw new UnsupportedOperationException("not called");
    };
    private static final ProviderExecutor CUSTOM_EXECUTOR = call -> {
        throw new UnsupportedOperationException("not called");
    };
    private static final ProviderExecutor PLUGIN_EXECUTOR = call -> {
        throw new UnsupportedOperationException("not called");
    };

    /** Lists its models and forwards nothing else. */
    private static final ProviderDescriptor CLOSED = new ProviderDescriptor("closed", "Closed", ProviderClass.APIKEY,
            "https://closed.example/v1", "closed-exec", List.of(ModelInfo.chat("closed-1"), ModelInfo.chat("gpt-4o")), false, false, false)
            .withModelPatterns("closed-*-preview", "fam-*");

    @TempDir
    Path dir;

    private RoutingFixture fx;
    private ProviderCatalog catalog;
    private ModelResolver resolver;

    @BeforeEach
    void setUp() {
        fx = new RoutingFixture(dir);
        catalog = new ProviderCatalog(List.of(
                new Provider(BuiltinProviders.OPENAI, BUILT_IN_EXECUTOR, Provider.BUILT_IN),
                new Provider(BuiltinProviders.GLM, BUILT_IN_EXECUTOR, Provider.BUILT_IN),
                new Provider(CLOSED, PLUGIN_EXECUTOR, "closed-plugin")), CUSTOM_EXECUTOR, fx.store, Map.of());
        resolver = new ModelResolver(catalog);
    }

    @AfterEach
    void tearDown() {
        fx.close();
    }

    // ------------------------------------------------------------------ provider/model

    @Test
    void aProvidersModelPatternsRouteUnlistedIdsBareAndPrefixedButOnlyWithAConnection_API1() {
        assertThat(resolver.resolve("closed/fam-2-20260101")).map(Route::upstreamModel).contains("fam-2-20260101");
        assertThat(resolver.resolve("closed/other-1")).as("neither listed nor matching").isEmpty();
        assertThat(resolver.resolve("fam-2-20260101")).as("bare: the provider has no connection yet").isEmpty();
        fx.add("closed", "c", 1);
        Route r = resolver.resolve("fam-2-20260101").orElseThrow();
        assertThat(r.provider().id()).isEqualTo("closed");
        assertThat(r.upstreamModel()).isEqualTo("fam-2-20260101");
        assertThat(resolver.resolve("closed-x-preview")).map(r2 -> r2.provider().id()).contains("closed");
    }

    @Test
    void providerSlashModelRoutesToThatProvider_API1() {
        Route r = resolver.resolve("openai/gpt-4o").orElseThrow();

        assertThat(r.provider().id()).isEqualTo("openai");
        assertThat(r.provider().origin()).isEqualTo(Provider.BUILT_IN);
        assertThat(r.upstreamModel()).isEqualTo("gpt-4o");
        assertThat(r.requested()).isEqualTo("openai/gpt-4o");
    }

    @Test
    void theModelPartMayContainSlashes_API1() {
        Route r = resolver.resolve("openai/meta-llama/Llama-3.3-70B-Instruct").orElseThrow();

        assertThat(r.provider().id()).isEqualTo("openai");
        assertThat(r.upstreamModel()).isEqualTo("meta-llama/Llama-3.3-70B-Instruct");
    }

    @Test
    void passthroughProviderForwardsUnlistedModelsEvenWithoutConnections_API1() {
        assertThat(resolver.resolve("glm/glm-9-preview")).map(Route::upstreamModel).contains("glm-9-preview");
    }

    @Test
    void unknownProviderResolvesToNothing_API6() {
        assertThat(resolver.resolve("nope/gpt-4o")).isEmpty();
    }

    @Test
    void nonPassthroughProviderRefusesAnUnlistedModel_API6() {
        fx.add("closed", "c", 1);

        assertThat(resolver.resolve("closed/closed-2")).isEmpty();
        Route listed = resolver.resolve("closed/closed-1").orElseThrow();
        assertThat(listed.provider().executor()).isSameAs(PLUGIN_EXECUTOR);
        assertThat(listed.provider().origin()).isEqualTo("closed-plugin");
    }

    @Test
    void malformedProviderPrefixesAreTreatedAsBareModels_API1() {
        assertThat(resolver.resolve("openai/")).isEmpty();
        assertThat(resolver.resolve("/gpt-4o")).isEmpty();
    }

    // ------------------------------------------------------------------ bare models

    @Test
    void bareModelNeedsAProviderWithConnectionsThatListsIt_API1() {
        assertThat(resolver.resolve("gpt-4o")).as("no connections yet").isEmpty();

        fx.add("openai", "o", 1);

        Route r = resolver.resolve("gpt-4o").orElseThrow();
        assertThat(r.provider().id()).isEqualTo("openai");
        assertThat(r.upstreamModel()).isEqualTo("gpt-4o");
        assertThat(r.requested()).isEqualTo("gpt-4o");
    }

    @Test
    void bareModelGoesToTheFirstListingProviderInListingOrder_API1() {
        fx.add("closed", "c", 1);
        assertThat(resolver.resolve("gpt-4o")).map(r -> r.provider().id()).contains("closed");

        fx.add("openai", "o", 1);
        assertThat(resolver.resolve("gpt-4o")).map(r -> r.provider().id()).contains("openai");
    }

    @Test
    void aBareIdGoesToTheProviderWhosePatternsClaimItBeforeAResellerListedEarlier_API1_issue32() {
        // a reseller that lists a family's ids comes earlier in listing order than the family's own provider
        ProviderDescriptor reseller = new ProviderDescriptor("reseller", "Reseller", ProviderClass.APIKEY, "https://reseller.example/v1",
                "reseller-exec", List.of(ModelInfo.chat("fam-1")), false, false, false);
        ModelResolver r = new ModelResolver(new ProviderCatalog(List.of(new Provider(reseller, PLUGIN_EXECUTOR, "a-plugin"),
                new Provider(CLOSED, PLUGIN_EXECUTOR, "closed-plugin")), CUSTOM_EXECUTOR, fx.store, Map.of()));
        fx.add("reseller", "r", 1);
        assertThat(r.resolve("fam-1")).as("only the reseller has a connection").map(x -> x.provider().id()).contains("reseller");

        fx.add("closed", "c", 1);

        assertThat(r.resolve("fam-1")).map(x -> x.provider().id()).contains("closed");
        assertThat(r.resolve("reseller/fam-1")).as("a prefixed id keeps its provider").map(x -> x.provider().id()).contains("reseller");
    }

    @Test
    void bareModelThatNobodyListsResolvesToNothing_API6() {
        fx.add("openai", "o", 1);
        assertThat(resolver.resolve("gpt-9")).isEmpty();
        assertThat(resolver.resolve("glm-4.6")).as("glm lists it but has no connection").isEmpty();
    }

    @Test
    void bareModelWithASlashStillResolvesWhenListed_API1() {
        ProviderDescriptor slashy = ProviderDescriptor.openAiCompatible("hub", "Hub", ProviderClass.APIKEY, "https://hub.example/v1",
                List.of(ModelInfo.chat("org/model-x")));
        ModelResolver r = new ModelResolver(new ProviderCatalog(List.of(new Provider(slashy, BUILT_IN_EXECUTOR, "hub-plugin")),
                CUSTOM_EXECUTOR, fx.store, Map.of()));
        fx.add("hub", "h", 1);

        assertThat(r.resolve("org/model-x")).map(x -> x.provider().id() + " " + x.upstreamModel()).contains("hub org/model-x");
    }

    // ------------------------------------------------------------------ custom providers (DM-2b)

    @Test
    void connectionWithAnUnclaimedProviderAndABaseUrlIsACustomPassthroughProvider_DM2b() {
        fx.add("deepseek", "ds", 1, true, "https://api.deepseek.example/v1");

        Route r = resolver.resolve("deepseek/deepseek-chat").orElseThrow();

        assertThat(r.upstreamModel()).isEqualTo("deepseek-chat");
        assertThat(r.provider().origin()).isEqualTo(Provider.CUSTOM);
        assertThat(r.provider().executor()).isSameAs(CUSTOM_EXECUTOR);
        ProviderDescriptor d = r.provider().descriptor();
        assertThat(d.id()).isEqualTo("deepseek");
        assertThat(d.defaultBaseUrl()).isEqualTo("https://api.deepseek.example/v1");
        assertThat(d.executor()).isEqualTo(HostContext.OPENAI_COMPATIBLE);
        assertThat(d.passthroughModels()).isTrue();
        assertThat(d.models()).isEmpty();
        assertThat(d.defaultClass()).isEqualTo(ProviderClass.APIKEY);
    }

    @Test
    void unclaimedProviderWithoutABaseUrlIsNotRoutable_DM2b() {
        fx.add("ghost", "g", 1);

        assertThat(resolver.resolve("ghost/model")).isEmpty();
        assertThat(catalog.find("ghost")).isEmpty();
    }

    @Test
    void aDeclaredProviderIsNeverShadowedByACustomOne_DM2b() {
        fx.add("openai", "proxy", 1, true, "https://my-proxy.example/v1");

        Provider p = catalog.find("openai").orElseThrow();
        assertThat(p.origin()).isEqualTo(Provider.BUILT_IN);
        assertThat(p.descriptor()).isSameAs(BuiltinProviders.OPENAI);
    }

    @Test
    void customProvidersNeverMatchBareModels_DM2b() {
        fx.add("deepseek", "ds", 1, true, "https://api.deepseek.example/v1");
        assertThat(resolver.resolve("deepseek-chat")).isEmpty();
    }

    // ------------------------------------------------------------------ catalog

    @Test
    void providersWithConnectionsListDeclaredOnesFirstThenCustomOnesByFirstConnection_DM2b() {
        fx.add("zeta", "z", 1, true, "https://zeta.example/v1");
        fx.add("closed", "c", 1);
        fx.add("alpha", "a1", 1, true, "https://alpha.example/v1");
        fx.add("zeta", "z2", 1, true, "https://zeta-2.example/v1");
        fx.add("openai", "o", 1);

        assertThat(catalog.withConnections()).extracting(Provider::id).containsExactly("openai", "closed", "zeta", "alpha");
        assertThat(catalog.find("zeta")).map(p -> p.descriptor().defaultBaseUrl()).contains("https://zeta.example/v1");
    }

    @Test
    void declaredProvidersKeepTheirListingOrder_DM2b() {
        assertThat(catalog.declared()).extracting(Provider::id).containsExactly("openai", "glm", "closed");
        assertThat(catalog.isDeclared("glm")).isTrue();
        assertThat(catalog.isDeclared("deepseek")).isFalse();
    }

    @Test
    void aProviderIdDeclaredTwiceIsRefused_PA1() {
        assertThatThrownBy(() -> new ProviderCatalog(List.of(
                new Provider(BuiltinProviders.OPENAI, BUILT_IN_EXECUTOR, Provider.BUILT_IN),
                new Provider(BuiltinProviders.OPENAI, PLUGIN_EXECUTOR, "evil")), CUSTOM_EXECUTOR, fx.store, Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("provider id 'openai' declared twice");
    }

    @Test
    void builtinProvidersFollowTheOfficialSdkBaseUrls_DM1b_SH2() {
        assertThat(BuiltinProviders.ALL).extracting(ProviderDescriptor::id).containsExactly("openai", "glm", "minimax");
        assertThat(BuiltinProviders.OPENAI.defaultBaseUrl()).isEqualTo("https://api.openai.com/v1");
        // OpenAI serves the Responses API too: its executor passes /v1/responses through
        assertThat(BuiltinProviders.OPENAI.executor()).isEqualTo(HostContext.OPENAI_RESPONSES);
        assertThat(List.of(BuiltinProviders.GLM, BuiltinProviders.MINIMAX)).allSatisfy(d ->
                assertThat(d.executor()).isEqualTo(HostContext.OPENAI_COMPATIBLE));
        assertThat(BuiltinProviders.ALL).allSatisfy(d -> assertThat(d.passthroughModels()).isTrue());
    }
}
