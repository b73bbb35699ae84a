package dev.sluice.runtime.http;

import dev.sluice.runtime.routing.ClientLiveness;
import java.util.ArrayList;
import java.util.List;

/**
 * What to do when one client connection closes (issue 28): the actions registered by the work in
 * progress on it (an attempt to interrupt, a stream relay to end), run once on the thread that saw
 * the close. An action closed before the close never runs, and closing one waits for it if it is
 * running, so its owner can clear an interrupt it may have caused and be sure none comes after.
 */
final class GoneActions {

    private final Object lock = new Object();
    private List<Action> actions;
    private boolean gone;

    /**
     * Registers an action; it runs at once (on this thread) when the client is already gone.
     *
     * @param action the action
     * @return its registration
     */
    ClientLiveness.GoneWatch add(Runnable action) {
        Action a = new Action(action);
        synchronized (lock) {
            if (!gone) {
                if (actions == null) {
                    actions = new ArrayList<>(2);
                }
                actions.add(a);
                return a;
            }
        }
        a.fire();
        return a;
    }

    /** The client is gone: runs every registered action, and any registered from now on. */
    void gone() {
        List<Action> due;
        synchronized (lock) {
            gone = true;
            due = actions;
            actions = null;
        }
        if (due != null) {
            for (Action a : due) {
                a.fire();
            }
        }
    }

    /** @return actions registered and not yet run or closed (for tests) */
    int pending() {
        synchronized (lock) {
            return actions == null ? 0 : actions.size();
        }
    }

    private final class Action implements ClientLiveness.GoneWatch {
        private final Runnable action;
        private boolean done;

        Action(Runnable action) {
            this.action = action;
        }

        synchronized void fire() {
            if (!done) {
                done = true;
                try {
                    action.run();
                } catch (RuntimeException e) {
                    // the owner's work ends some other way (its next write fails)
                }
            }
        }

        @Override
        public void close() {
            synchronized (this) {
                done = true;
            }
            synchronized (lock) {
                if (actions != null) {
                    actions.remove(this);
                }
            }
        }
    }
}
