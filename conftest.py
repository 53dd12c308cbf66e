"""For the whole suite (tests/ and notebooks/) under pytest-xdist, as `make test` runs it (-n auto).

- Scheduling: every test is its own unit of work, except that a notebook's cells (one
  test each, run in order in one kernel) go to one worker together, and so do the tests
  of a file that share something dear (ONE_WORKER), the browser tests among them.
  Bigger units are handed out first. xdist's own loadgroup does not do this here: it marks
  a test's group by rewriting a nodeid attribute that pytest 9 no longer reads, so the
  marks were silently ignored and notebooks split across workers.
- The controller reports a test only when it ends, so a few long tests (the browser
  tests, the kit's notebooks) would leave minutes of silence: after QUIET seconds with no
  report it names what is still running, and how long it has been.
"""

import threading
import time

pytest_plugins = ("tests.forked_python",)  # the notebooks' kernels fork from a pre-imported Python

QUIET = 30  # seconds


# Test files whose tests go to one worker together, so that what they share is paid once, not
# once a worker: file -> what that is.
ONE_WORKER = {
    "tests/grader/test_mutation_tool.py": "a module fixture: cosmic-ray enumerating the reference's mutants (seconds)",
    "tests/adapters/test_providers.py": "the OpenAI and Anthropic SDKs, imported by the first test (5 s of CPU)",
    "tests/instructor/test_release.py": "session fixtures: the kits, built from the reference (seconds)",
    "tests/instructor/test_kit_as_received.py": "a module fixture: the kit's own environment, built by its Makefile",
    "tests/instructor/test_class_books.py": "a module fixture: a class of 16 graded once, then its term changed in order",
    "tests/lab/test_door_speed.py": "agtool.door_speed, imported by the first test (pydantic and LangChain: 2 s of CPU)",
    "tests/adapters/test_mcp_server.py": "the MCP SDK, imported by the first test (2 s of CPU)",
    "tests/lab/test_realworld.py": "module fixtures: BFCL's 5,611 definitions imported, a sample compared (2 s)",
    # and on two cores, two JupyterLabs and two Chromiums at once make both slow
    "tests/lab/test_browser.py": "module fixtures: one `make lab`, one Chromium",
}


def work_unit(nodeid: str) -> str:
    """The tests that must run in one worker, in order, share the name this gives."""
    path = nodeid.split("::")[0]
    if path.endswith(".ipynb"):
        return path
    if path in ONE_WORKER:
        return path
    return nodeid


def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "load":  # -n alone; an explicit other --dist is left to xdist
        return None
    from xdist.scheduler import LoadScopeScheduling

    class Units(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return work_unit(nodeid)

    return Units(config, log)


def pytest_configure(config):
    config.pluginmanager.register(Heartbeat(config), "agtool-heartbeat")


class Heartbeat:
    def __init__(self, config):
        self.config = config
        self.running: dict[str, float] = {}  # nodeid -> when it started
        self.last = time.monotonic()
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._beat, name="heartbeat", daemon=True)

    def pytest_sessionstart(self, session):
        # Only the controller of an xdist run (its plugin is there by now, not at configure):
        # in a single process the test's own output capture would swallow the lines.
        if session.config.pluginmanager.hasplugin("dsession"):
            self.thread.start()

    def pytest_sessionfinish(self):
        self.done.set()

    def pytest_runtest_logstart(self, nodeid):
        with self.lock:
            self.running[nodeid] = self.last = time.monotonic()

    def pytest_runtest_logreport(self, report):
        with self.lock:
            self.last = time.monotonic()
            if report.when == "teardown":
                self.running.pop(report.nodeid, None)

    def _beat(self):
        while not self.done.wait(5):
            now = time.monotonic()
            with self.lock:
                if now - self.last < QUIET or not self.running:
                    continue
                self.last = now
                running = sorted(self.running.items(), key=lambda item: item[1])
            reporter = self.config.pluginmanager.get_plugin("terminalreporter")
            if reporter is not None:
                names = ", ".join(f"{nodeid.split('@')[0]} ({now - start:.0f} s)" for nodeid, start in running)
                if reporter._tw.width_of_current_line:  # after a row of dots: its own line
                    reporter.write("\n")
                reporter.write_line(f"... still running: {names}")
