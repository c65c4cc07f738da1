// Package traffic records what a service answers a [plantstore.Client],
// passively through the client's [plantstore.Hooks], and compares two
// recordings for drift.
//
// A [Recorder], in fixed memory, counts every attempt's outcome in the
// client's own terms ([Kind]), its latency per outcome in OpenTelemetry's
// exponential histogram ([Bucket]), and the lengths of the runs of
// consecutive failures ([Runs]). What it writes holds no token, body byte,
// request id, or URL beyond scheme and host (the host as the client's base
// URL names it: one that holds a secret is written with it).
//
// [Recorder.WriteTo] writes the recording as a profile document of the
// conformance kit, which plantstoretest.ParseProfile and plantstore-mock
// -profile load as it is, and [Read] reads back:
//
//	{
//	  "source": "traffic.Recorder: https://plants.example.com",
//	  "traffic": {
//	    "attempts": 10000,
//	    "outcomes": [
//	      {"kind": "2xx", "status": 200, "count": 9790,
//	       "latency": [{"from_us": 1024, "to_us": 1116.68, "count": 12}, ...]},
//	      {"kind": "4xx", "status": 400, "code": 3, "count": 4, "latency": [...]},
//	      {"kind": "5xx", "status": 503, "count": 100, "latency": [...],
//	       "retry_after": [{"seconds": null, "count": 2}, {"seconds": 3, "count": 98}]},
//	      {"kind": "broken_after_send", "count": 20, "latency": [...]}
//	    ],
//	    "failure_runs": {"runs": 40, "failures": 210,
//	                     "lengths": [{"length": 1, "count": 10}, ...]}
//	  }
//	}
//
// [Recording] documents each field and its bounds.
package traffic
