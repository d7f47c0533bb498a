"""The interval AIPerf divides its rates by, read by its summary importer and by its
server-metrics importer alike (one definition, no import circle between the two)."""

# AIPerf 0.13 divides its token throughputs by the profiling window (MetricResultsDict.observation_duration:
# the phase's start_ns, as it begins sending, to requests_end_ns, its last response; exported as
# start_time and end_time); 0.1.1 to 0.11 divided by benchmark_duration (first request sent to last
# response received), as their files in ../shared/real-outputs/aiperf show.
WINDOW_SINCE = (0, 13)
PROFILING_WINDOW = {
    "start_event": "start of AIPerf's profiling phase (its start_time), as it begins sending the phase's requests",
    "end_event": "last response of AIPerf's profiling phase received (its end_time)",
    "scope": "end-to-end",
    "measurement": "complete-interval",
}
