-- Appended to every wrk script by run.sh: prints one machine-readable line the summary reads.
function done(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status
      + summary.errors.timeout
  io.write(string.format("WRK_RESULT requests=%d seconds=%.3f rps=%.1f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f errors=%d non2xx=%d\n",
      summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
      latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000, errors,
      summary.errors.status))
end
