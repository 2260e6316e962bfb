//! A job rebuilt from the options a result records: fio's JSON (and iolens's, which has the
//! same keys) lists each job's options by name with their values as written (`"rate_iops" :
//! "1k"`). They go through the option table, as a job file's would, so that `1k`, `1Ki`,
//! `50%`, `r,w` pairs and every other value mean what they meant in the run; explain then
//! asks the spec and its [`Effective`] numbers instead of reading option text itself.
//!
//! A result can name what iolens does not run (an engine such as `mmap`, an option iolens
//! rejects) or values this version does not accept: the job is still rebuilt from the rest,
//! and what was not read is listed.

use crate::effective::Effective;
use crate::error::Span;
use crate::options::{self, Status};
use crate::spec::{ForeignEngine, JobSpec, TypedOption};

/// A job as its result records it.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedJob {
    /// The job's options applied to fio's defaults.
    pub spec: JobSpec,
    /// The recorded engine when iolens does not run it (its spec keeps the default engine).
    pub foreign_engine: Option<&'static ForeignEngine>,
    /// Options that did not apply, each as `name=value: why`.
    pub unread: Vec<String>,
}

impl RecordedJob {
    /// Rebuilds job `name` from its recorded options (global options first, then the job's
    /// own, names as written or canonical). Options are applied in the table's priority order
    /// (`kb_base` before sizes, `ioengine` before engine options), as a job file's are.
    pub fn from_options<'a>(
        name: &str,
        options: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> RecordedJob {
        let mut spec = JobSpec::new(name, Span::new("<result>".into(), 0), 0);
        let mut foreign_engine = None;
        let mut unread = Vec::new();
        let mut known: Vec<(&'static options::OptDef, &str)> = Vec::new();
        for (key, value) in options {
            match options::lookup(key.trim()) {
                Some(def) => known.push((def, value)),
                None => unread.push(format!("{key}={value}: not a fio option")),
            }
        }
        known.sort_by_key(|(d, _)| -d.prio);
        for (def, value) in known {
            let (Status::Supported | Status::Partial(_), Some(apply)) = (def.status, def.apply)
            else {
                // Accepted without effect, or rejected by iolens: nothing the run's numbers
                // depend on in iolens's model of the job.
                continue;
            };
            // A bare flag is recorded with an empty value (fio prints `"time_based" : ""`).
            let v = if value.trim().is_empty() && def.kind.bare_allowed() {
                "1"
            } else {
                value
            };
            if let Err(why) = apply(&mut spec, v) {
                if def.name == "ioengine" {
                    if let Some(e) = ForeignEngine::lookup(v) {
                        foreign_engine = Some(e);
                        spec.ioengine_name = v.trim().to_string();
                        continue;
                    }
                }
                unread.push(format!("{}={value}: {why}", def.name));
                continue;
            }
            spec.own_options.push(TypedOption {
                name: def.name.to_string(),
                value: value.to_string(),
            });
        }
        if let Err(why) = spec.validate() {
            unread.push(why);
        }
        spec.warnings.clear();
        RecordedJob {
            spec,
            foreign_engine,
            unread,
        }
    }

    /// The job's effective numbers, with a foreign engine's own submission.
    pub fn effective(&self) -> Effective {
        match self.foreign_engine {
            Some(e) => Effective::with_engine(&self.spec, e.sync),
            None => self.spec.effective(),
        }
    }

    /// The engine's name as the result gives it.
    pub fn engine_name(&self) -> &str {
        &self.spec.ioengine_name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effective::Submission;
    use crate::spec::Ddir;

    fn rec(opts: &[(&str, &str)]) -> RecordedJob {
        RecordedJob::from_options("j", opts.iter().copied())
    }

    #[test]
    fn values_mean_what_they_meant_in_the_run() {
        let r = rec(&[("rate_iops", "1k,500"), ("rate", "4m"), ("rw", "randrw")]);
        let e = r.effective();
        assert_eq!(
            (e.rate_of(Ddir::Read).iops, e.rate_of(Ddir::Write).iops),
            (1024, 500),
            "rate_iops=1k,500 as fio 3.33 paces it: {:?}",
            r.unread
        );
        assert_eq!(e.rate_of(Ddir::Read).bytes_per_s, 4 << 20, "rate=4m");
        // kb_base applies before sizes whatever the order the result lists them in.
        let r = rec(&[("rate", "4m"), ("kb_base", "1000")]);
        assert_eq!(r.spec.rate[0], 4_000_000, "rate=4m with kb_base=1000");
        let r = rec(&[
            ("blocksize", "16k"),
            ("iodepth", "8"),
            ("ioengine", "libaio"),
        ]);
        assert_eq!((r.spec.bs[0], r.effective().depth.get()), (16384, 8));
    }

    #[test]
    fn engines_iolens_does_not_run_keep_their_submission() {
        let r = rec(&[("ioengine", "mmap"), ("iodepth", "16")]);
        assert_eq!(r.foreign_engine.map(|e| e.name), Some("mmap"));
        assert_eq!(r.engine_name(), "mmap");
        let e = r.effective();
        assert_eq!(
            (e.submission, e.depth.get()),
            (Submission::Inline, 1),
            "mmap is synchronous"
        );
        let r = rec(&[("ioengine", "rbd"), ("iodepth", "16")]);
        let e = r.effective();
        assert_eq!(
            (e.submission, e.depth.get()),
            (Submission::Queued, 16),
            "rbd queues"
        );
        assert!(r.unread.is_empty(), "{:?}", r.unread);
    }

    #[test]
    fn what_does_not_apply_is_listed_and_the_rest_is_kept() {
        let r = rec(&[("iodepth", "lots"), ("numjobs", "4"), ("frobnicate", "1")]);
        assert_eq!(r.spec.numjobs, 4);
        assert_eq!(
            r.spec.iodepth, 1,
            "the default where the value did not parse"
        );
        assert_eq!(r.unread.len(), 2, "{:?}", r.unread);
        assert!(r.unread[0].starts_with("frobnicate=1"), "{:?}", r.unread);
        let r = rec(&[("time_based", ""), ("runtime", "10")]);
        assert!(
            r.spec.time_based && r.effective().time_bound,
            "a bare flag as fio records it"
        );
    }
}
