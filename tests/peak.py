#!/usr/bin/env python3
"""peak.py LOG CMD [ARG]... - run CMD, then append to LOG one line: the command's name, its own
peak resident memory in KiB (VmHWM from /proc/PID/status, read while it runs and once more as it
ends) and the peak of it and every process it waited for (wait4's ru_maxrss, which the kernel
keeps exactly). Exits with CMD's status. bench/memory.sh and tests/t/48-eval-memory.t point
RAG_EVAL_BIN at a directory of wrappers that run each tool through it."""
import os
import signal
import sys


def hwm(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main():
    log, cmd = sys.argv[1], sys.argv[2:]
    pid = os.fork()
    if pid == 0:
        try:
            os.execv(cmd[0], cmd)
        except OSError as e:
            sys.stderr.write(f"peak.py: {cmd[0]}: {e}\n")
            os._exit(127)
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, lambda n, f: os.kill(pid, n))
    own = 0
    while True:
        try:
            # not a wait on the clock: a poll of a high-water mark, which only rises
            wpid, status, ru = os.wait4(pid, os.WNOHANG)
        except InterruptedError:
            continue
        if wpid == pid:
            break
        own = max(own, hwm(pid))
        signal.sigtimedwait([signal.SIGCHLD], 0.02)
    own = own or ru.ru_maxrss
    with open(log, "a") as f:
        f.write(f"{os.path.basename(cmd[0])} {own} {ru.ru_maxrss}\n")
    if os.WIFSIGNALED(status):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    sys.exit(os.WEXITSTATUS(status))


main()
