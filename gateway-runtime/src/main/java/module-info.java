/**
 * The Sluice server: Helidon SE web server, client and admin APIs, routing, resilience,
 * persistence and the plugin loader. Exports nothing; plugins see only {@code sluice.api}.
 */
module sluice.runtime {
    requires sluice.api;
    requires sluice.toolkit;
    requires io.helidon.webserver;
    requires io.helidon.webclient.api;
    requires io.helidon.webclient.http1;
    requires io.helidon.http;
    requires io.helidon.common;
    requires io.helidon.common.socket;
    // the connection wrapper that counts open connections keeps Helidon's interruptible-while-idle answer
    requires io.helidon.common.task;
    requires io.helidon.config;
    requires io.helidon.config.yaml;
    // GET /openapi: the YAML document is also served as JSON
    requires org.yaml.snakeyaml;
    requires com.fasterxml.jackson.databind;
    requires java.net.http;
    requires java.sql;
    // bin/sluice doctor quiets the plugin loader's log while it reports the same facts itself
    requires java.logging;
    requires org.xerial.sqlitejdbc;
    // SLUICE_DATABASE_URL: PostgreSQL (pgjdbc is an automatic module) behind HikariCP's pool
    requires org.postgresql.jdbc;
    requires com.zaxxer.hikari;
    // SLUICE_REDIS_URL: the hot resilience state several instances share (Jedis is an automatic module)
    requires redis.clients.jedis;
    requires org.apache.commons.pool2;
    // GET /metrics: Micrometer's Prometheus registry (automatic modules) and the JVM binders' MXBeans
    requires micrometer.core;
    requires micrometer.registry.prometheus;
    requires java.management;
    requires jdk.management;

    uses dev.sluice.api.ProviderPlugin;
}
