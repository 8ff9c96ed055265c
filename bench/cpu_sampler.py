#!/usr/bin/env python3
"""Who used the machine's CPU during a bench run, once a second (run.sh starts and stops it).

  cpu_sampler.py OUT.tsv DB SERVICE_PID_FILE [SERVICE_PID_FILE ...]

Writes cumulative CPU seconds per group: the services (pid files re-read every second: a restarted service keeps
its group), the load generators (Gatling and the Maven
that launches it, wrk, pgbench, redis-benchmark), PostgreSQL backends serving DB, PostgreSQL's shared processes
(WAL writer, checkpointer, autovacuum, other databases' backends), redis-server, and everything else — which on a
shared machine is mostly other people's builds. Per-phase cores follow from the differences (summarize.py).
"""
import os
import sys
import time

HZ = os.sysconf("SC_CLK_TCK")
GROUPS = ["service", "service-no-redis", "loadgen", "postgres-bench", "postgres-other", "redis", "other"]


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def processes():
    """pid -> (cpu seconds, comm, cmdline) for every process that can be read."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        stat = read(f"/proc/{name}/stat")
        if not stat:
            continue
        stat = stat.decode(errors="replace")
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        cpu = (int(fields[11]) + int(fields[12])) / HZ    # utime + stime
        cmdline = (read(f"/proc/{name}/cmdline") or b"").replace(b"\0", b" ").decode(errors="replace")
        out[int(name)] = (cpu, comm, cmdline)
    return out


def group(pid, comm, cmdline, services, db):
    if pid in services:
        return services[pid]
    if comm in ("wrk", "pgbench", "redis-benchmark") or "gatling" in cmdline.lower():
        return "loadgen"
    if comm == "postgres" or cmdline.startswith("postgres"):
        return "postgres-bench" if f" {db} " in cmdline else "postgres-other"
    if comm == "redis-server":
        return "redis"
    return "other"


def machine():
    fields = open("/proc/stat").readline().split()[1:9]
    values = [int(v) for v in fields]
    total = sum(values)
    idle = values[3] + values[4]
    return (total - idle) / HZ, total / HZ


def main(argv):
    out_path, db = argv[1], argv[2]
    pid_files = argv[3:5]

    def services():
        out = {}
        for i, path in enumerate(pid_files):
            try:
                out[int(open(path).read().strip())] = GROUPS[i]
            except (OSError, ValueError):
                pass
        return out
    totals = {g: 0.0 for g in GROUPS}
    last = {pid: cpu for pid, (cpu, _, _) in processes().items()}
    with open(out_path, "w") as out:
        out.write("epoch\tmachine_busy\tmachine_total\t" + "\t".join(GROUPS) + "\n")
        while True:
            time.sleep(1)
            now = processes()
            current = services()
            for pid, (cpu, comm, cmdline) in now.items():
                # a process born since the last sample spent all of its CPU in this interval
                before = last.get(pid, 0.0)
                totals[group(pid, comm, cmdline, current, db)] += cpu - before if cpu >= before else cpu
            last = {pid: cpu for pid, (cpu, _, _) in now.items()}
            busy, total = machine()
            out.write(f"{time.time():.1f}\t{busy:.2f}\t{total:.2f}\t"
                      + "\t".join(f"{totals[g]:.2f}" for g in GROUPS) + "\n")
            out.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
