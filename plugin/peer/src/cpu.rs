//! CPU clocks: the calling thread's (a criterion measurement, so that the in-process
//! bench counts the CPU a request takes and not the time others' processes take the core
//! from it), and a whole process's (the sum over its threads of
//! `/proc/PID/task/*/schedstat`).

use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::Throughput;

/// The calling thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`).
pub fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write to; the clock id is a constant.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// A criterion measurement of the bench thread's CPU time.
pub struct ThreadCpu;

impl Measurement for ThreadCpu {
    type Intermediate = Duration;
    type Value = Duration;

    fn start(&self) -> Duration {
        thread_cpu()
    }
    fn end(&self, start: Duration) -> Duration {
        thread_cpu().saturating_sub(start)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, v: &Duration) -> f64 {
        v.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuFormatter
    }
}

struct CpuFormatter;

impl CpuFormatter {
    fn scale(typical_ns: f64) -> (f64, &'static str) {
        if typical_ns < 1e3 {
            (1.0, "ns cpu")
        } else if typical_ns < 1e6 {
            (1e-3, "µs cpu")
        } else if typical_ns < 1e9 {
            (1e-6, "ms cpu")
        } else {
            (1e-9, "s cpu")
        }
    }
}

impl ValueFormatter for CpuFormatter {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = Self::scale(typical);
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }

    fn scale_throughputs(&self, typical: f64, t: &Throughput, values: &mut [f64]) -> &'static str {
        let mut per_second = |n: u64| {
            values
                .iter_mut()
                .for_each(|v| *v = n as f64 * 1e9 / *v / (1024.0 * 1024.0));
        };
        match *t {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) => {
                per_second(n);
                "MiB/s cpu"
            }
            Throughput::Elements(n) => {
                let _ = typical;
                values.iter_mut().for_each(|v| *v = n as f64 * 1e9 / *v);
                "elem/s cpu"
            }
        }
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

/// A process's CPU time so far: the sum of the first field (time on CPU, ns) of
/// `/proc/PID/task/*/schedstat` over its live threads.
///
/// # Errors
///
/// When `/proc` cannot be read (not Linux, or the process is gone).
pub fn process_cpu(pid: u32) -> std::io::Result<Duration> {
    let mut total = 0u64;
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))? {
        let path = task?.path().join("schedstat");
        // A thread may end between the listing and the read.
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        total += text
            .split_whitespace()
            .next()
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0);
    }
    Ok(Duration::from_nanos(total))
}

/// A process's CPU time so far from `/proc/PID/stat` (user + system, in clock ticks,
/// ended threads included): a coarse cross-check of [`process_cpu`].
///
/// # Errors
///
/// When `/proc` cannot be read.
pub fn process_cpu_ticks(pid: u32) -> std::io::Result<Duration> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The fields after the command name, which is in parentheses and may hold spaces.
    let rest = text.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of stat; `rest` starts at field 3.
    let ticks = |i: usize| fields.get(i - 3).and_then(|f| f.parse::<u64>().ok());
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    let total = ticks(14).unwrap_or(0) + ticks(15).unwrap_or(0);
    Ok(Duration::from_nanos(total * 1_000_000_000 / hz))
}
