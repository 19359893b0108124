"""The console entry point, run as a user would."""
import subprocess
import sys


def run(*args):
    return subprocess.run([sys.executable, "-m", "sipkl.cli", *args], capture_output=True,
                          text=True, timeout=300)


def test_help():
    out = run("--help")
    assert out.returncode == 0 and "demo" in out.stdout


def test_demo_small():
    out = run("demo", "--n-train", "80", "--n-test", "200", "--quiet")
    assert out.returncode == 0, out.stderr
    assert "learned scales" in out.stdout and "SVC + GridSearchCV" in out.stdout


def test_bad_option_exits_with_usage():
    out = run("demo", "--C", "-1")
    assert out.returncode == 2 and "--C" in out.stderr
