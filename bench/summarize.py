#!/usr/bin/env python3
"""Turns one bench/run.sh run (bench/target/results) into the summary table; standard library only.

  summarize.py saturation LEVELS.tsv COLUMN PER_USER   users/s served at the best step of a stairs run
  summarize.py report RESULTS_DIR                      the Markdown summary (run.sh also writes summary.md)

Every headline is a ratio of figures measured in the same run on the same machine: the machine is shared, so
absolute numbers move with other people's load, ratios much less.
"""
import csv
import html
import os
import re
import statistics
import sys

# The wrk scenarios. The peer is measured in the same run by bench/versus.sh, never copied from elsewhere.
WRK_SCENARIOS = ("ship", "same-key retry", "keyless duplicate SHIP", "GET")
STORM_DUPLICATES_PER_ORDER = 20   # of 25 requests per order in DuplicateStormSimulation
STORM_REQUESTS_PER_ORDER = 25


def levels(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    for row in rows:
        for key, value in row.items():
            if key != "verdict":
                row[key] = float(value)
        # goodput: a step that sheds load with 503s has not served those requests
        if "http_per_s" in row:
            row["good_per_s"] = row["http_per_s"] - row.get("http_5xx_per_s", 0.0)
    return rows


def samples(path):
    return levels(path)


def best(rows, column):
    """The best step of a stairs run: the most it served while refusing (5xx) at most 1% of the requests."""
    clean = [row for row in rows if row.get("http_5xx_per_s", 0.0) <= 0.01 * row["http_per_s"]]
    return max((row[column] for row in clean or rows), default=0.0)


def saturation(path, column, per_user):
    rows = levels(path)
    if not rows:
        return 0.0
    return round(best(rows, column) / per_user, 1)


def delta(rows, column):
    """Whole-run change of a counter (first sample to last)."""
    return rows[-1].get(column, 0.0) - rows[0].get(column, 0.0) if len(rows) >= 2 else 0.0


def gatling_stats(index_html):
    """Per request name: count, ko, rps and percentiles, read from the stats table of Gatling's index.html."""
    if not index_html or not os.path.exists(index_html):
        return {}
    text = open(index_html, encoding="utf-8").read()
    stats = {}
    for row in re.finditer(r'<tr id="[^"]*"[^>]*>(.*?)</tr>', text, re.S):
        body = row.group(1)
        name = re.search(r'class="ellipsed-name">(.*?)</span>', body, re.S)
        cells = dict(re.findall(r'<td class="value [a-z]+ col-(\d+)">([^<]*)</td>', body))
        if not name or "2" not in cells:
            continue

        def num(col):
            try:
                return float(cells.get(col, "nan").replace(",", ""))
            except ValueError:
                return float("nan")

        stats[html.unescape(name.group(1)).strip()] = {
            "count": num("2"), "ok": num("3"), "ko": num("4"), "rps": num("6"), "min": num("7"),
            "p50": num("8"), "p99": num("9"), "p999": num("10"), "p9999": num("11"), "max": num("12"),
            "mean": num("13")}
    return stats


def runs(results):
    out = {}
    path = os.path.join(results, "runs.tsv")
    if os.path.exists(path):
        for line in open(path):
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 4:
                out[parts[0]] = {"simulation": parts[1], "rc": int(parts[2]), "report": parts[3]}
    return out


def pgbench_tps(path):
    if not os.path.exists(path):
        return None
    match = re.search(r"^tps = ([\d.]+)", open(path).read(), re.M)
    return float(match.group(1)) if match else None


def pgbench_count(path):
    if not os.path.exists(path):
        return 0
    match = re.search(r"number of transactions actually processed: (\d+)", open(path).read())
    return int(match.group(1)) if match else 0


def wrk_result(path):
    if not os.path.exists(path):
        return None
    match = re.search(r"WRK_RESULT (.*)", open(path).read())
    if not match:
        return None
    return {k: float(v) for k, v in (kv.split("=") for kv in match.group(1).split())}


def redis_bench(path):
    if not os.path.exists(path):
        return {}
    text = open(path).read().replace("\r", "\n")
    out = {}
    for command, rps, p50 in re.findall(r"^(SET|GET): ([\d.]+) requests per second, p50=([\d.]+) msec", text, re.M):
        out[command] = (float(rps), float(p50))
    return out


def rss_mb(path):
    if not os.path.exists(path):
        return None
    values = []
    for line in open(path):
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and int(parts[1]) > 0:
            values.append(int(parts[1]) / 1024)
    return max(values) if values else None


def phase_cpu(results):
    """Per phase: seconds, load average, and cores used by each group (from cpu.tsv and phases.tsv)."""
    phases_path, cpu_path = os.path.join(results, "phases.tsv"), os.path.join(results, "cpu.tsv")
    if not (os.path.exists(phases_path) and os.path.exists(cpu_path)):
        return []
    phases = [line.rstrip("\n").split("\t") for line in open(phases_path)]
    with open(cpu_path) as f:
        rows = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f, delimiter="\t")]
    if len(rows) < 2:
        return []
    out = []
    for i, (label, start, load) in enumerate(phases):
        start = float(start)
        end = float(phases[i + 1][1]) if i + 1 < len(phases) else rows[-1]["epoch"]
        inside = [r for r in rows if start <= r["epoch"] <= end]
        if len(inside) < 2:
            continue
        a, b = inside[0], inside[-1]
        span = b["epoch"] - a["epoch"]
        cores = {g: (b[g] - a[g]) / span for g in ("service", "service-no-redis", "loadgen", "postgres-bench",
                                                   "postgres-other", "redis", "other")}
        cores["busy"] = (b["machine_busy"] - a["machine_busy"]) / span
        out.append({"label": label, "seconds": end - start, "load": load, "cores": cores, "span": span})
    return out


def properties(path):
    out = {}
    if os.path.exists(path):
        for line in open(path):
            if "=" in line:
                key, value = line.rstrip("\n").split("=", 1)
                out[key] = value
    return out


def fmt(value, digits=0):
    if value is None or value != value:
        return "n/a"
    return f"{value:,.{digits}f}"


def ratio(a, b):
    return a / b if a and b else None


def verdict(ok):
    return "n/a" if ok is None else ("met" if ok else "**missed**")


def level_table(rows, per_user_label, transitions):
    lines = [f"| step | offered {per_user_label}/s | offered req/s | served req/s |"
             + (" transitions/s |" if transitions else "")
             + " 5xx/s | service cores (ms CPU/request) | machine busy (of 2 cores) | verdict |",
             "|---:|---:|---:|---:|" + ("---:|" if transitions else "") + "---:|---:|---:|---|"]
    for row in rows:
        busy = row["machine_busy_jiffies_per_s"] / row["machine_jiffies_per_s"] * 2 \
            if row.get("machine_jiffies_per_s") else None
        lines.append(f"| {int(row['level'])} | {fmt(row['users_per_s'], 1)} | {fmt(row['offered_req_per_s'])} | "
                     f"{fmt(row['http_per_s'])} |"
                     + (f" {fmt(row['applied_per_s'])} |" if transitions else "")
                     + f" {fmt(row['http_5xx_per_s'], 1)} | {fmt(row['cpu_ns_per_s'] / 1e9, 2)} "
                     f"({fmt(row['cpu_ns_per_s'] / 1e6 / row['http_per_s'] if row['http_per_s'] else None, 2)}) |"
                     f" {fmt(busy, 2)} |"
                     f" {row['verdict']} |")
    return "\n".join(lines)


def latency_table(stats, names):
    lines = ["| request | count | KO | p50 ms | p99 ms | p99.9 ms | max ms |", "|---|---:|---:|---:|---:|---:|---:|"]
    for name in names:
        if name in stats:
            s = stats[name]
            lines.append(f"| {name} | {fmt(s['count'])} | {fmt(s['ko'])} | {fmt(s['p50'])} | {fmt(s['p99'])} | "
                         f"{fmt(s['p999'])} | {fmt(s['max'])} |")
    return "\n".join(lines)


def report(results):
    env = properties(os.path.join(results, "environment.properties"))
    run = runs(results)
    out = []
    say = out.append

    s1 = levels(os.path.join(results, "s1-stairs-levels.tsv"))
    s2 = levels(os.path.join(results, "s2-stairs-levels.tsv"))
    s3 = levels(os.path.join(results, "s3-stairs-levels.tsv"))
    s4 = levels(os.path.join(results, "s4-stairs-levels.tsv"))
    s1_half = gatling_stats(run.get("s1-half", {}).get("report"))
    s2_half = gatling_stats(run.get("s2-half", {}).get("report"))
    s2_half_samples = samples(os.path.join(results, "s2-half-samples.tsv"))
    s3_samples = samples(os.path.join(results, "s3-stairs-samples.tsv"))

    s1_transitions = best(s1, "applied_per_s")
    s1_requests = best(s1, "good_per_s")
    s2_requests = best(s2, "good_per_s")
    s2_duplicates = s2_requests * STORM_DUPLICATES_PER_ORDER / STORM_REQUESTS_PER_ORDER
    s3_requests = best(s3, "good_per_s")
    s4_requests = best(s4, "good_per_s")
    tps = [t for t in (pgbench_tps(os.path.join(results, f)) for f in ("pgbench-before.txt", "pgbench-after.txt"))
           if t]
    anchor_tps = statistics.mean(tps) if tps else None
    anchor_tx = sum(pgbench_count(os.path.join(results, f)) for f in ("pgbench-before.txt", "pgbench-after.txt"))
    moved_path = os.path.join(results, "anchor-moved.txt")
    anchor_moved = int(open(moved_path).read().strip() or 0) if os.path.exists(moved_path) else None
    s1_best_row = next((r for r in s1 if r["applied_per_s"] == s1_transitions), None)
    wrk = {name: wrk_result(os.path.join(results, f"wrk-{slug}.txt")) for name, slug in
           (("ship", "ship"), ("same-key retry", "same-key-retry"),
            ("keyless duplicate SHIP", "keyless-duplicate-ship"), ("GET", "get"))}
    rss = rss_mb(os.path.join(results, "service-rss.tsv"))
    rss_no_redis = rss_mb(os.path.join(results, "service-no-redis-rss.tsv"))
    redis_c50 = redis_bench(os.path.join(results, "redis-benchmark-c50.txt"))
    redis_c32 = redis_bench(os.path.join(results, "redis-benchmark-c32.txt"))

    transition_names = ["pay", "callback PAYMENT_SUCCEEDED", "ship", "deliver"]
    s1_transition_p99 = max((s1_half[n]["p99"] for n in transition_names if n in s1_half), default=None)
    replay_p99 = max((s2_half[n]["p99"] for n in ("replay (keyed)", "replay (keyless ship)") if n in s2_half),
                     default=None)

    # which layer answered the duplicates of the fixed-rate storm (server counters, whole run)
    storm_requests = delta(s2_half_samples, "http")
    storm_duplicates = storm_requests * STORM_DUPLICATES_PER_ORDER / STORM_REQUESTS_PER_ORDER
    # answered without the database: by Redis, or handed over by the copy running on the same replica
    redis_share = ratio(delta(s2_half_samples, "replay_redis") + delta(s2_half_samples, "replay_replica"),
                        storm_duplicates)

    say(f"## orderflow benchmark — {env.get('date', '?')} (commit {env.get('commit', '?')})")
    say("")
    say(f"Machine: {env.get('cores', '?')} cores ({env.get('cpu', '?')}), {env.get('memory', '?')}, shared with "
        f"other builds. {env.get('java', '')}; PostgreSQL {env.get('postgres', '?')}; Redis {env.get('redis', '?')}; "
        f"service -Xmx{env.get('xmx', '?')} {env.get('gc', '')}, PostgreSQL pool {env.get('pool', '?')}. Stairs: steps of "
        f"{env.get('level_seconds', '?')} s, x{env.get('factor', '?')} per step.")
    say("")
    say("### Headlines (ratios within this run)")
    say("")
    say("| figure | value | goal | |")
    say("|---|---:|---|---|")
    r = ratio(s1_transitions, anchor_tps)
    say(f"| S1 lifecycle transitions/s at saturation ÷ pgbench tps of the same SQL (c={env.get('pool', '?')}) | "
        f"{fmt(s1_transitions)} ÷ {fmt(anchor_tps)} = **{fmt(r, 2)}** | ≥ 0.5 | {verdict(r and r >= 0.5)} |")
    r = ratio(s2_duplicates, s1_transitions)
    say(f"| S2 duplicates/s at saturation ÷ S1 first-time transitions/s | {fmt(s2_duplicates)} ÷ "
        f"{fmt(s1_transitions)} = **{fmt(r, 2)}** | ≥ 3 | {verdict(r and r >= 3)} |")
    r = ratio(wrk["same-key retry"]["rps"] if wrk["same-key retry"] else None,
              wrk["ship"]["rps"] if wrk["ship"] else None)
    say(f"| wrk same-key retry ÷ wrk ship | **{fmt(r, 2)}** | ≥ 3 | {verdict(r and r >= 3)} |")
    r = ratio(wrk["keyless duplicate SHIP"]["rps"] if wrk["keyless duplicate SHIP"] else None,
              wrk["ship"]["rps"] if wrk["ship"] else None)
    say(f"| wrk keyless duplicate SHIP ÷ wrk ship | **{fmt(r, 2)}** | (≥ 3 for duplicates) | "
        f"{verdict(r and r >= 3)} |")
    say(f"| S2 replay p99 at half of S2's saturation | **{fmt(replay_p99)} ms** | < 5 ms | "
        f"{verdict(None if replay_p99 is None else replay_p99 < 5)} |")
    say(f"| S1 transition p99 at half of S1's saturation (worst of pay, callback, ship, deliver) | "
        f"**{fmt(s1_transition_p99)} ms** | < 20 ms | "
        f"{verdict(None if s1_transition_p99 is None else s1_transition_p99 < 20)} |")
    say(f"| S2 duplicates answered without PostgreSQL: Redis, or the running copy in memory (fixed-rate storm) | **{fmt(redis_share * 100 if redis_share else None)}%** "
        f"| 80% by design (16 of 20; the 4 keyless SHIP repeats are the state machine's) | |")
    r = ratio(s3_requests, s2_requests)
    say(f"| S3 (Redis down) ÷ S2 (Redis up), requests/s at saturation | {fmt(s3_requests)} ÷ {fmt(s2_requests)} = "
        f"**{fmt(r, 2)}** | (report) | |")
    say(f"| service RSS, max under load (-Xmx{env.get('xmx', '?')} {env.get('gc', '')}) | **{fmt(rss)} MB** (Redis-down instance: "
        f"{fmt(rss_no_redis)} MB) | ≤ 400 MB | {verdict(rss and rss <= 400)} |")
    say("")
    cpu = {p["label"]: p for p in phase_cpu(results)}
    say("### wrk figures (2 threads, 32 connections, closed model; the peer beside them: bench/versus.sh below)")
    say("")
    say("| request | req/s | p50 ms | p99 ms | errors | service CPU ms/request | service cores |")
    say("|---|---:|---:|---:|---:|---:|---:|")
    for name in WRK_SCENARIOS:
        w = wrk[name]
        if not w:
            say(f"| {name} | n/a | | | | | |")
            continue
        phase = cpu.get("wrk-" + {"ship": "ship", "same-key retry": "same-key-retry",
                                  "keyless duplicate SHIP": "keyless-duplicate-ship", "GET": "get"}[name])
        cores = phase["cores"]["service"] if phase else None
        say(f"| {name} | {fmt(w['rps'])} | {fmt(w['p50_ms'], 1)} | {fmt(w['p99_ms'], 1)} | {fmt(w['errors'])} | "
            f"{fmt(cores * 1000 / w['rps'] if cores and w['rps'] else None, 2)} | {fmt(cores, 2)} |")
    say("")
    say("### Anchors")
    say("")
    for label in ("pgbench-before", "pgbench-after"):
        say(f"- {label}: {fmt(pgbench_tps(os.path.join(results, label + '.txt')))} tps (the service's keyed SHIP "
            f"statement, one round trip, -M prepared, {env.get('pool', '?')} clients)")
    if anchor_moved is not None and anchor_tx:
        say(f"- anchor transactions whose CAS moved the order: {anchor_moved:,} of {anchor_tx:,} "
            f"({anchor_moved / anchor_tx * 100:.2f}%)")
    if s1_best_row:
        say(f"- SQL statements/s of the service at S1's best step: {fmt(s1_best_row['statements_per_s'])} "
            f"({fmt(s1_best_row['statements_per_s'] / s1_best_row['applied_per_s'] if s1_best_row['applied_per_s'] else None, 2)}"
            f" per transition) vs the anchor's {fmt(anchor_tps)} "
            f"(1 per transition): ratio {fmt(ratio(s1_best_row['statements_per_s'], anchor_tps), 2)}")
    for label, data in (("c=50", redis_c50), ("c=32", redis_c32)):
        if data:
            say(f"- redis-benchmark {label}: " + ", ".join(
                f"{cmd} {fmt(rps)} req/s (p50 {p50} ms)" for cmd, (rps, p50) in data.items()))
    say("")
    say("### S1 lifecycle — stairs (open model; served = completed by the service, from its own counters)")
    say("")
    say(level_table(s1, "lifecycles", True) if s1 else "(no data)")
    say("")
    say(f"Saturation: **{fmt(s1_transitions)} transitions/s** ({fmt(s1_requests)} requests/s).")
    say("")
    say(f"### S1 lifecycle — fixed rate at half of saturation")
    say("")
    say(latency_table(s1_half, ["create", "pay", "callback PAYMENT_SUCCEEDED", "ship", "deliver"])
        if s1_half else "(no data)")
    say("")
    say("### S2 duplicate storm — stairs")
    say("")
    say(level_table(s2, "orders", False) if s2 else "(no data)")
    say("")
    say(f"Saturation: **{fmt(s2_requests)} requests/s**, of which duplicates {fmt(s2_duplicates)}/s.")
    say("")
    say("### S2 duplicate storm — fixed rate at half of its saturation")
    say("")
    say(latency_table(s2_half, ["create", "replay (keyed)", "replay (keyless ship)", "race ×3: pay",
                                "race ×3: callback", "race ×3: ship (keyless)", "race ×3: deliver"])
        if s2_half else "(no data)")
    say("")
    if s2_half_samples:
        say(f"Who answered the {fmt(storm_duplicates)} duplicates (server counters): Redis "
            f"{fmt(delta(s2_half_samples, 'replay_redis'))}, handed over in memory by the running copy "
            f"{fmt(delta(s2_half_samples, 'replay_replica'))}, dedup record in PostgreSQL "
            f"{fmt(delta(s2_half_samples, 'replay_db'))}, state machine (keyless) "
            f"{fmt(delta(s2_half_samples, 'duplicate'))}, 409 in-flight {fmt(delta(s2_half_samples, 'in_flight'))}; "
            f"Redis fallbacks {fmt(delta(s2_half_samples, 'redis_fallbacks'))}; SQL statements per request "
            f"{fmt(ratio(delta(s2_half_samples, 'statements'), storm_requests), 2)}.")
        say("")
    say("### S3 duplicate storm with Redis down — stairs")
    say("")
    say(level_table(s3, "orders", False) if s3 else "(no data)")
    say("")
    if s3_samples:
        s3_requests_total = delta(s3_samples, "http")
        say(f"Saturation: **{fmt(s3_requests)} requests/s**. Answers: Redis {fmt(delta(s3_samples, 'replay_redis'))}, "
            f"dedup record {fmt(delta(s3_samples, 'replay_db'))}, state machine {fmt(delta(s3_samples, 'duplicate'))}; "
            f"SQL statements per request {fmt(ratio(delta(s3_samples, 'statements'), s3_requests_total), 2)}.")
        say("")
    say("### S4 read mix (80% GET, 20% SHIP) — stairs")
    say("")
    say(level_table(s4, "requests", True) if s4 else "(no data)")
    say("")
    say(f"Saturation: **{fmt(s4_requests)} requests/s**.")
    say("")
    if cpu:
        say("### Where the CPU went, per phase (cores of 2; 'other' is mostly other people's builds)")
        say("")
        say("| phase | s | load avg | busy | service | service (Redis down) | load generator | PostgreSQL (bench) "
            "| PostgreSQL (other) | Redis | other |")
        say("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for p in cpu.values():
            c = p["cores"]
            say(f"| {p['label']} | {fmt(p['seconds'])} | {p['load']} | {fmt(c['busy'], 2)} | {fmt(c['service'], 2)} | "
                f"{fmt(c['service-no-redis'], 2)} | {fmt(c['loadgen'], 2)} | {fmt(c['postgres-bench'], 2)} | "
                f"{fmt(c['postgres-other'], 2)} | {fmt(c['redis'], 2)} | {fmt(c['other'], 2)} |")
        say("")
    say("### Runs")
    say("")
    for label, info in run.items():
        say(f"- {label}: {info['simulation']}, Gatling exit {info['rc']}, report {info['report'] or 'none'}")
    phases = os.path.join(results, "phases.tsv")
    if os.path.exists(phases):
        say("")
        say("Load average (1, 5, 15 min) at the start of each phase: " + "; ".join(
            f"{p[0]} {p[2]}" for p in (line.rstrip('\n').split('\t') for line in open(phases)) if len(p) == 3))
    return "\n".join(out)


def main(argv):
    if len(argv) == 5 and argv[1] == "saturation":
        print(saturation(argv[2], argv[3], float(argv[4])))
    elif len(argv) == 3 and argv[1] == "report":
        print(report(argv[2]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
