#!/usr/bin/env python3
"""Summarises one bench/versus.sh run (its folder as the argument): ratios from that run only."""
import os
import sys

NAMES = {
    "ship": "ship (first-time transition, keyed)",
    "dup_retry": "same-key retry",
    "dup_newkey": "duplicate SHIP, new key",
    "get": "GET",
}


def results(path):
    rows = {}
    if not os.path.exists(path):
        return rows
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) >= 10:
            rows[f[0]] = {"rps": float(f[1]), "p50": f[2], "p99": f[3], "non2xx": int(f[5]),
                          "sockerr": int(f[6]), "exhausted": f[9] != "0"}
    return rows


def tsv(path):
    if not os.path.exists(path):
        return []
    return [line.rstrip("\n").split("\t") for line in open(path) if line.strip()]


def main(out):
    peer = results(os.path.join(out, "peer.tsv"))
    before = results(os.path.join(out, "before.tsv"))
    now = results(os.path.join(out, "orderflow.tsv"))
    print("# orderflow beside the peer: one run, one machine, one driver\n")
    print("```\n" + open(os.path.join(out, "environment.txt")).read().strip() + "\n```\n")
    head = "| scenario | peer req/s |" + (" before req/s |" if before else "") + " orderflow req/s | × peer |"
    head += (" × before |" if before else "") + " p50 / p99 ms (orderflow) | non-2xx |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for key, label in NAMES.items():
        if key not in now:
            continue
        o, p, b = now[key], peer.get(key), before.get(key)
        cells = [label, f"{p['rps']:,.0f}" if p else "–"]
        if before:
            cells.append(f"{b['rps']:,.0f}" if b else "–")
        cells.append(f"{o['rps']:,.0f}" + (" (ids ran out)" if o["exhausted"] else ""))
        cells.append(f"{o['rps'] / p['rps']:.2f}×" if p else "–")
        if before:
            cells.append(f"{o['rps'] / b['rps']:.2f}×" if b else "–")
        cells.append(f"{o['p50']} / {o['p99']}")
        cells.append(f"{o['non2xx']} (peer {p['non2xx'] if p else '–'})")
        print("| " + " | ".join(cells) + " |")
    print()
    rss = tsv(os.path.join(out, "rss.tsv"))
    if rss:
        print("| process | RSS after its run | peak RSS |\n|---|---|---|")
        for name, rss_kb, hwm_kb in rss:
            print(f"| {name} | {int(rss_kb) // 1024} MB | {int(hwm_kb) // 1024} MB |")
        print()
    anchor = tsv(os.path.join(out, "anchor.tsv"))
    if anchor:
        print("| pgbench on the service's own statement (20 clients) | tps | transactions | orders moved |")
        print("|---|---|---|---|")
        for label, tps, done, moved, *_ in anchor:
            print(f"| {label} | {int(tps):,} | {int(done):,} | {int(moved):,} |")
        keyed = next((int(t) for label, t, *_ in anchor if label == "pgbench-keyed"), None)
        if keyed and "ship" in now:
            print(f"\nship reaches {now['ship']['rps'] / keyed:.2f} of the keyed anchor"
                  + (f" (the peer: {peer['ship']['rps'] / keyed:.2f})" if "ship" in peer else "") + ".")


if __name__ == "__main__":
    main(sys.argv[1])
