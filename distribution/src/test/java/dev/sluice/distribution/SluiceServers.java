package dev.sluice.distribution;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts Sluice servers for one test, always ends them after it (even when the test fails), and
 * prints what each of them wrote when the test failed. Register it per instance:
 * {@code @RegisterExtension final SluiceServers servers = new SluiceServers();}
 */
final class SluiceServers implements AfterTestExecutionCallback, AfterEachCallback {

    private final List<SluiceProcess> started = new ArrayList<>();

    /** See {@link SluiceProcess#start}. */
    SluiceProcess start(Path home, Map<String, String> env) {
        SluiceProcess sluice = SluiceProcess.start(home, env);
        started.add(sluice);
        return sluice;
    }

    @Override
    public void afterTestExecution(ExtensionContext context) {
        if (context.getExecutionException().isPresent()) {
            for (int i = 0; i < started.size(); i++) {
                System.err.printf("---- %s: output of Sluice server %d of %d ----%n%s%n", context.getDisplayName(), i + 1,
                        started.size(), started.get(i).output());
            }
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        for (SluiceProcess sluice : started) {
            sluice.close();
        }
        started.clear();
    }
}
