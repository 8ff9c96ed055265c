#!/usr/bin/env python3
"""Charts of one bench/versus.sh run as SVG (no plotting library needed).

  bench/plot.py bench/target/versus docs/img

Writes versus-ratios.svg (orderflow ÷ the peer per scenario, with the goals), versus-ship.svg (ship per second: the
peer, orderflow without and with group commit, pgbench's one-transaction and group-commit figures for the same SQL)
and versus-rss.svg (RSS after each contestant's run).
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from versus_report import SCENARIOS, per_round, ratios, results, tsv  # noqa: E402

WIDTH, BAR, GAP, LEFT, RIGHT, TOP = 760, 26, 12, 300, 90, 44


def bars(title, rows, unit, path, marks=None):
    """rows: (label, value, colour); marks: {label: goal value} drawn as a tick on that row."""
    peak = max([v for _, v, _ in rows] + list((marks or {}).values())) or 1
    height = TOP + len(rows) * (BAR + GAP) + 20
    scale = (WIDTH - LEFT - RIGHT) / peak
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'font-family="sans-serif" font-size="13">',
           f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
           f'<text x="{WIDTH / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">{title}</text>']
    for i, (label, value, colour) in enumerate(rows):
        y = TOP + i * (BAR + GAP)
        out.append(f'<text x="{LEFT - 8}" y="{y + BAR * 0.7}" text-anchor="end">{label}</text>')
        out.append(f'<rect x="{LEFT}" y="{y}" width="{max(1, value * scale):.1f}" height="{BAR}" fill="{colour}"/>')
        out.append(f'<text x="{LEFT + value * scale + 6:.1f}" y="{y + BAR * 0.7}">{value:,.2f}{unit}</text>'
                   if value < 100 else
                   f'<text x="{LEFT + value * scale + 6:.1f}" y="{y + BAR * 0.7}">{value:,.0f}{unit}</text>')
        goal = (marks or {}).get(label)
        if goal:
            x = LEFT + goal * scale
            out.append(f'<line x1="{x:.1f}" y1="{y - 3}" x2="{x:.1f}" y2="{y + BAR + 3}" stroke="black" '
                       f'stroke-width="2" stroke-dasharray="4 2"/>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main(run, img):
    os.makedirs(img, exist_ok=True)
    peer = results(os.path.join(run, "peer", "results.tsv"))
    now = results(os.path.join(run, "orderflow", "results.tsv"))
    off = results(os.path.join(run, "orderflow-group-commit-off", "results.tsv"))
    rounds, times, goals = per_round(os.path.join(run, "rounds.tsv")), [], {}
    for key, label, goal in SCENARIOS:
        within = ratios(rounds, "orderflow", "peer", key)
        if within:
            times.append((label, statistics.median(within), "#2b6cb0"))
            goals[label] = goal
    bars("orderflow ÷ the peer, median of the rounds of one run (dashed: the goal)", times, "×",
         os.path.join(img, "versus-ratios.svg"), goals)

    anchor = {row[0]: int(row[1]) * (int(row[4]) if len(row) > 4 else 1)
              for row in tsv(os.path.join(run, "anchor.tsv"))}
    ship = [("the peer (Spring Boot + JPA)", peer.get("ship", {}).get("rps", 0), "#a0aec0"),
            ("orderflow, group commit off", off.get("ship", {}).get("rps", 0), "#90cdf4"),
            ("orderflow as shipped", now.get("ship", {}).get("rps", 0), "#2b6cb0"),
            ("pgbench, one order per commit", anchor.get("pgbench-keyed", 0), "#f6ad55"),
            ("pgbench, group-commit statement", anchor.get("pgbench-batch", 0), "#dd6b20")]
    bars("ship: orders moved per second, same run, same SQL", [r for r in ship if r[1]], "/s",
         os.path.join(img, "versus-ship.svg"))

    rss = [(name, int(kb) / 1024, "#2b6cb0" if name == "orderflow" else "#a0aec0")
           for name, kb, _ in tsv(os.path.join(run, "rss.tsv"))]
    bars("RSS after each contestant's run (MB; dashed: 400 MB)", rss, " MB", os.path.join(img, "versus-rss.svg"),
         {"orderflow": 400})


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
