#!/usr/bin/env python3
"""Summarises one bench/versus.sh run (its folder as the argument): ratios from that run only.

Every contestant ran in rounds: a ratio is taken within a round (the contestants measured back to back), and a
contestant's figure for a scenario is its median round.
"""
import glob
import os
import statistics
import sys

SCENARIOS = [  # key, label, goal (× the peer)
    ("ship", "ship (first-time transition, keyed)", 3.0),
    ("dup_retry", "same-key retry", 10.0),
    ("dup_newkey", "duplicate SHIP, new key", 3.0),
    ("get", "GET", 4.0),
]


def tsv(path):
    if not os.path.exists(path):
        return []
    return [line.rstrip("\n").split("\t") for line in open(path) if line.strip()]


def row(f):
    """One line of wrk's figures (the peer driver's results.tsv format)."""
    return {"rps": float(f[1]), "p50": float(f[2]), "p99": float(f[3]), "non2xx": int(f[5]), "sockerr": int(f[6]),
            "requests": int(f[7]), "exhausted": f[9] != "0"}


def results(path):
    """wrk's figures per scenario: the median round's (the upper one of an even number), non-2xx over all rounds."""
    rounds = {}
    for f in tsv(path):
        if len(f) >= 10:
            rounds.setdefault(f[0], []).append(row(f))
    out = {}
    for scenario, rows in rounds.items():
        median = dict(sorted(rows, key=lambda r: r["rps"])[len(rows) // 2])
        median["non2xx"] = sum(r["non2xx"] for r in rows)
        median["exhausted"] = any(r["exhausted"] for r in rows)
        out[scenario] = median
    return out


def per_round(path):
    """{(round, contestant, scenario): req/s} of rounds.tsv."""
    return {(f[0], f[1], f[2]): float(f[3]) for f in tsv(path) if len(f) >= 12}


def ratios(rounds, a, b, scenario):
    """a ÷ b within each round both ran the scenario, in round order."""
    keys = sorted({r for r, _, _ in rounds}, key=int)
    return [rounds[(r, a, scenario)] / rounds[(r, b, scenario)] for r in keys
            if (r, a, scenario) in rounds and (r, b, scenario) in rounds and rounds[(r, b, scenario)]]


def cpu(path, ticks):
    """Service and PostgreSQL CPU milliseconds per request, per scenario, over all its rounds."""
    sums = {}
    for name, requests, service, pg in tsv(path):
        n, s, p = sums.get(name, (0, 0, 0))
        sums[name] = (n + int(requests), s + int(service), p + int(pg))
    return {name: (s * 1000 / ticks / max(1, n), p * 1000 / ticks / max(1, n)) for name, (n, s, p) in sums.items()}


def wal(path):
    """WAL bytes per request, per scenario, over all its rounds (none when the file is absent)."""
    if not os.path.exists(path):
        return {}
    sums = {}
    for name, requests, wal_bytes in tsv(path):
        n, w = sums.get(name, (0, 0))
        sums[name] = (n + int(requests), w + int(wal_bytes))
    return {name: w / max(1, n) for name, (n, w) in sums.items()}


def batch_rows(folder):
    """Mean rows per group-commit statement over the ship runs of all rounds."""
    def read(path):
        values = {}
        for line in open(path) if os.path.exists(path) else []:
            key, value = line.split()[:2]  # with tracing on a line ends with an exemplar: "# {trace_id=...} 1.0 t"
            values[key.split("{")[0]] = float(value)
        return values
    count = total = 0
    for before in glob.glob(os.path.join(folder, "batch-before-*.txt")):
        a, b = read(before), read(before.replace("batch-before-", "batch-after-"))
        count += b.get("orderflow_transitions_batch_rows_count", 0) - a.get("orderflow_transitions_batch_rows_count", 0)
        total += b.get("orderflow_transitions_batch_rows_sum", 0) - a.get("orderflow_transitions_batch_rows_sum", 0)
    return total / count if count else None


def times(values):
    """The median ratio in bold, then each round's."""
    if not values:
        return "–", "–"
    return f"**{statistics.median(values):.2f}×**", " · ".join(f"{v:.2f}" for v in values)


def main(out):
    env = dict(line.split("=", 1) for line in open(os.path.join(out, "environment.txt")).read().splitlines()
               if "=" in line)
    ticks = int(env.get("clock_ticks_per_second", "100"))
    contestants = [c[0] for c in tsv(os.path.join(out, "contestants.tsv"))]
    flags = {c[0]: (c[1], c[2]) for c in tsv(os.path.join(out, "contestants.tsv"))}
    figures = {name: results(os.path.join(out, name, "results.tsv")) for name in contestants}
    cpus = {name: cpu(os.path.join(out, name, "cpu.tsv"), ticks) for name in contestants + ["peer"]}
    peer = results(os.path.join(out, "peer", "results.tsv"))
    driver = results(os.path.join(out, "peer-driver", "results.tsv"))
    rounds = per_round(os.path.join(out, "rounds.tsv"))
    now, off = figures.get("orderflow", {}), figures.get("orderflow-group-commit-off", {})
    before = figures.get("before", {})

    print("# orderflow beside the peer: one run, one machine, one driver\n")
    print("```\n" + open(os.path.join(out, "environment.txt")).read().strip() + "\n```\n")
    print("req/s: each contestant's median round. × and ÷: the median of the ratios taken within each round, then"
          " each round's.\n")
    head = ["scenario", "peer req/s (its driver alone, first)", "orderflow req/s", "× peer", "each round", "goal",
            "group commit off req/s", "on ÷ off (each round)"]
    if before:
        head += ["before req/s", "× before (each round)"]
    head += ["p50 / p99 ms", "service / PostgreSQL CPU ms per request", "non-2xx"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for key, label, goal in SCENARIOS:
        if key not in now:
            continue
        o, p, g, b, d = now[key], peer.get(key), off.get(key), before.get(key), driver.get(key)
        x = ratios(rounds, "orderflow", "peer", key)
        median, each = times(x)
        met = x and statistics.median(x) >= goal
        on_off, on_off_each = times(ratios(rounds, "orderflow", "orderflow-group-commit-off", key))
        cells = [label, (f"{p['rps']:,.0f}" if p else "–") + (f" ({d['rps']:,.0f})" if d else ""),
                 f"{o['rps']:,.0f}" + (" (ids ran out)" if o["exhausted"] else ""),
                 median, each, f"≥ {goal:g}× {'met' if met else 'missed'}",
                 f"{g['rps']:,.0f}" if g else "–", f"{on_off} ({on_off_each})" if g else "–"]
        if before:
            vs, vs_each = times(ratios(rounds, "orderflow", "before", key))
            cells += [f"{b['rps']:,.0f}" if b else "–", f"{vs} ({vs_each})" if b else "–"]
        c = cpus["orderflow"].get(key)
        cells += [f"{o['p50']:.1f} / {o['p99']:.1f}", f"{c[0]:.3f} / {c[1]:.3f}" if c else "–",
                  f"{o['non2xx']} (peer {p['non2xx'] if p else '–'})"]
        print("| " + " | ".join(cells) + " |")

    if "dup_newkey" in driver:
        print(f"\nThe peer's own driver ran first, alone (in brackets above). Its new-key duplicate run sends its"
              f" warm-up's (key, order) pairs again (one RUN_ID, wrk's unseeded math.random): stored answers to"
              f" replay, {driver['dup_newkey']['rps']:,.0f} req/s. The rounds send the same script with keys of"
              f" their own, for every contestant.")
    walls = {name: wal(os.path.join(out, name, "wal.tsv")) for name in contestants}
    if before and "ship" in walls.get("orderflow", {}) and "ship" in walls.get("before", {}):
        w, wb = walls["orderflow"]["ship"], walls["before"]["ship"]
        c, cb = cpus["orderflow"].get("ship"), cpus["before"].get("ship")
        print(f"\nPer ship, until its events are in the stream: WAL {w:,.0f} bytes (before {wb:,.0f}, "
              f"{w / wb:.2f}x); service / PostgreSQL CPU ms {c[0]:.3f} / {c[1]:.3f} (before {cb[0]:.3f} / "
              f"{cb[1]:.3f}, PostgreSQL {c[1] / cb[1]:.2f}x).")
    pc = cpus.get("peer", {})
    if pc:
        print("\nThe peer's CPU ms per request (service / PostgreSQL): " + ", ".join(
            f"{label.split(' (')[0]} {pc[key][0]:.3f} / {pc[key][1]:.3f}" for key, label, _ in SCENARIOS
            if key in pc) + ".")

    print("\n| contestant | ship rows per statement (mean) | service / PostgreSQL CPU ms per ship |")
    print("|---|---|---|")
    for name in contestants:
        rows, c = batch_rows(os.path.join(out, name)), cpus[name].get("ship")
        print(f"| {name} | {rows:.1f} |" if rows else f"| {name} | – |",
              f"{c[0]:.3f} / {c[1]:.3f} |" if c else "– |")

    print("\n| ship at a pace | contestant | achieved req/s | % of its saturation | p50 ms | p99 ms |")
    print("|---|---|---|---|---|---|")
    paced = {}
    for name in contestants:
        sat = figures[name].get("ship", {}).get("rps")
        for label, percent, *wrk in tsv(os.path.join(out, name, "paced-summary.tsv")):
            rps, p50, p99 = float(wrk[1]), float(wrk[2]), float(wrk[3])
            paced[(name, label)] = (rps, p50, p99)
            share = f"{rps / sat * 100:.0f}%" if sat else "–"
            print(f"| {label} ({percent}%) | {name} | {rps:,.0f} | {share} | {p50:.2f} | {p99:.2f} |")
    if ("orderflow", "low") in paced and ("orderflow-group-commit-off", "low") in paced:
        rise = paced[("orderflow", "low")][1] - paced[("orderflow-group-commit-off", "low")][1]
        print(f"\np50 at about 10% of saturation, group commit on minus off: {rise:+.2f} ms (goal ≤ +1 ms:"
              f" {'met' if rise <= 1 else 'missed'}).")
    if ("orderflow", "half") in paced:
        p99 = paced[("orderflow", "half")][2]
        print(f"p99 of ship at about half saturation: {p99:.1f} ms (goal < 20 ms: {'met' if p99 < 20 else 'missed'}).")

    if "orderflow-tracing" in contestants:
        print("\n| scenario | tracing on ÷ off (each round) | service CPU ms per request, off / on |")
        print("|---|---|---|")
        for key, label, _ in SCENARIOS:
            on_off, each = times(ratios(rounds, "orderflow-tracing", "orderflow", key))
            off_cpu, on_cpu = cpus["orderflow"].get(key), cpus["orderflow-tracing"].get(key)
            print(f"| {label} | {on_off} ({each}) |"
                  + (f" {off_cpu[0]:.3f} / {on_cpu[0]:.3f} |" if off_cpu and on_cpu else " – |"))
        sink = os.path.join(out, "otlp-sink.txt")
        if os.path.exists(sink):
            print(f"\nThe OTLP sink received {open(sink).read().strip()}.")

    anchor = tsv(os.path.join(out, "anchor.tsv"))
    if anchor:
        print("\n| pgbench on the service's own statement | clients | tps | orders moved per second |")
        print("|---|---|---|---|")
        seconds = float(env.get("pgbench_seconds", "15"))
        per_second = {}
        for label, tps, done, moved, *rest in anchor:
            rows = int(rest[0]) if rest else 1
            per_second[label] = int(tps) * rows
            clients = "4" if label.endswith("4-clients") else "20"
            print(f"| {label}{f' ({rows} rows per statement)' if rows > 1 else ''} | {clients} | {int(tps):,} |"
                  f" {int(tps) * rows:,} |")
        keyed = per_second.get("pgbench-keyed")
        if keyed and "ship" in now:  # the median rounds' ship
            r = now["ship"]["rps"] / keyed
            print(f"\nship reaches **{r:.2f}×** pgbench's one-transaction figure for the same SQL (goal ≥ 0.5,"
                  f" stretch > 1: {'stretch met' if r > 1 else 'met' if r >= 0.5 else 'missed'})"
                  + (f"; without group commit {off['ship']['rps'] / keyed:.2f}×" if "ship" in off else "")
                  + (f"; the peer {peer['ship']['rps'] / keyed:.2f}×" if "ship" in peer else "") + ".")
        on_off = ratios(rounds, "orderflow", "orderflow-group-commit-off", "ship")
        if on_off:
            r = statistics.median(on_off)
            print(f"group commit on ÷ off on ship: **{r:.2f}×**, the median of "
                  f"{' · '.join(f'{v:.2f}' for v in on_off)} (goal ≥ 1.5: {'met' if r >= 1.5 else 'missed'}).")

    rss = tsv(os.path.join(out, "rss.tsv"))
    if rss:
        # the memory search compares JVM flag sets of this build, as configured: the other builds and group commit
        # off are not candidates
        flag_sets = [n for n in contestants if n == "orderflow" or n.startswith("mem-")]
        best = {key: max((figures[n].get(key, {}).get("rps", 0) for n in flag_sets), default=0)
                for key, _, _ in SCENARIOS}
        print("\n| process | JVM flags (and environment) | RSS after its run | peak RSS | every scenario within 5% of the"
              " best flag set's |")
        print("|---|---|---|---|---|")
        for name, rss_kb, hwm_kb in rss:
            within = "–"
            if name in flag_sets and figures[name] and len(flag_sets) > 1:
                worst = min(figures[name][k]["rps"] / best[k] for k, _, _ in SCENARIOS if k in figures[name]
                            and best[k])
                within = f"{'yes' if worst >= 0.95 else 'no'} (worst {worst * 100:.0f}%)"
            env_, jvm = flags.get(name, ("", "its defaults"))
            env_ = " ".join(v for v in env_.split() if not v.startswith(("ORDERS_", "IDEMPOTENCY_")))
            print(f"| {name} | {jvm.replace(' -Djava.util.logging.manager=org.jboss.logmanager.LogManager', '')}"
                  f"{f' ({env_})' if env_ else ''} | {int(rss_kb) // 1024} MB |"
                  f" {int(hwm_kb) // 1024} MB | {within} |")


if __name__ == "__main__":
    main(sys.argv[1])
