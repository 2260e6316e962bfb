//! What suites change in a job: a sweep's axis value, a curve's offered rate, an instance's cap
//! on a simulated volume. A [`Setting`] is a typed value of one option; it is applied to built
//! specs (no job text is written back and parsed again) and recorded among the job's own
//! options as fio's JSON would list it had the job file said so. A setting read from the
//! command line (`iodepth=1..256`, `bs=4k`, `rw=randread`) is parsed by the option table, so
//! it means what it means in a job file.

use std::num::NonZeroU32;

use crate::options::{self, Status};
use crate::spec::{JobSpec, RateProcess, RwKind, TypedOption};
use crate::Span;

/// A typed value of one option.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// `iodepth`.
    Iodepth(NonZeroU32),
    /// `numjobs`.
    Numjobs(NonZeroU32),
    /// `bs` per direction (read, write, trim), each above 0.
    Bs([u64; 3]),
    /// `rw` (without an offset modifier).
    Rw(RwKind),
    /// `rwmixread`, 0 to 100.
    RwMixRead(u32),
    /// `rate_iops` per direction.
    RateIops([u64; 3]),
    /// `rate_process`.
    RateProcess(RateProcess),
    /// `open_loop`.
    OpenLoop(bool),
    /// `lat_percentiles`.
    LatPercentiles(bool),
    /// `sim_iops`.
    SimIops(f64),
    /// `sim_bw` in bytes per second.
    SimBw(f64),
}

impl Value {
    /// The option's canonical name.
    pub fn option(&self) -> &'static str {
        match self {
            Value::Iodepth(_) => "iodepth",
            Value::Numjobs(_) => "numjobs",
            Value::Bs(_) => "bs",
            Value::Rw(_) => "rw",
            Value::RwMixRead(_) => "rwmixread",
            Value::RateIops(_) => "rate_iops",
            Value::RateProcess(_) => "rate_process",
            Value::OpenLoop(_) => "open_loop",
            Value::LatPercentiles(_) => "lat_percentiles",
            Value::SimIops(_) => "sim_iops",
            Value::SimBw(_) => "sim_bw",
        }
    }

    /// The value as a job file would write it.
    fn text(&self) -> String {
        // Directions not named take the last value given (fio's per-direction lists).
        let per_dir = |v: &[u64; 3]| {
            if v[1] == v[0] && v[2] == v[0] {
                v[0].to_string()
            } else if v[2] == v[1] {
                format!("{},{}", v[0], v[1])
            } else {
                format!("{},{},{}", v[0], v[1], v[2])
            }
        };
        match self {
            Value::Iodepth(n) | Value::Numjobs(n) => n.to_string(),
            Value::Bs(b) | Value::RateIops(b) => per_dir(b),
            Value::Rw(k) => k.name().to_string(),
            Value::RwMixRead(p) => p.to_string(),
            Value::RateProcess(p) => match p {
                RateProcess::Linear => "linear".into(),
                RateProcess::Poisson => "poisson".into(),
            },
            Value::OpenLoop(b) | Value::LatPercentiles(b) => u8::from(*b).to_string(),
            Value::SimIops(x) | Value::SimBw(x) => format!("{}", x.round()),
        }
    }

    fn apply(&self, s: &mut JobSpec) {
        match *self {
            Value::Iodepth(n) => s.iodepth = n.get(),
            Value::Numjobs(n) => s.numjobs = n.get(),
            Value::Bs(b) => s.bs = b,
            Value::Rw(k) => {
                s.rw = k;
                s.rw_modifier = None;
            }
            Value::RwMixRead(p) => s.rwmixread = p.min(100),
            Value::RateIops(r) => s.rate_iops = r,
            Value::RateProcess(p) => s.rate_process = p,
            Value::OpenLoop(b) => s.open_loop = b,
            Value::LatPercentiles(b) => s.lat_percentiles = b,
            Value::SimIops(x) => s.sim.iops = Some(x),
            Value::SimBw(x) => s.sim.bw = Some(x),
        }
    }
}

/// One option set to a typed value, with the text the job's options record for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    value: Value,
    text: String,
}

impl From<Value> for Setting {
    fn from(value: Value) -> Setting {
        Setting {
            text: value.text(),
            value,
        }
    }
}

impl Setting {
    /// Parses `name=text` through the option table, as a job file's line would be: the
    /// error names the option and what it allows. Only the options a [`Value`] can hold are
    /// accepted.
    pub fn parse(name: &str, text: &str) -> Result<Setting, String> {
        let def = options::lookup(name.trim())
            .filter(|d| matches!(d.status, Status::Supported))
            .ok_or_else(|| format!("'{name}' is not an option a suite can set"))?;
        let apply = def
            .apply
            .ok_or_else(|| format!("'{name}' is not an option a suite can set"))?;
        let mut s = JobSpec::new("setting", Span::cmdline(0), 0);
        apply(&mut s, text.trim()).map_err(|e| format!("{}={text}: {e}", def.name))?;
        let nz = |n: u32| {
            NonZeroU32::new(n).ok_or_else(|| format!("{}={text}: must be at least 1", def.name))
        };
        let value = match def.name {
            "iodepth" => Value::Iodepth(nz(s.iodepth)?),
            "numjobs" => Value::Numjobs(nz(s.numjobs)?),
            "bs" => Value::Bs(s.bs),
            "rw" if s.rw_modifier.is_none() => Value::Rw(s.rw),
            "rwmixread" | "rwmixwrite" => Value::RwMixRead(s.rwmixread),
            "rate_iops" => Value::RateIops(s.rate_iops),
            "rate_process" => Value::RateProcess(s.rate_process),
            "open_loop" => Value::OpenLoop(s.open_loop),
            "lat_percentiles" => Value::LatPercentiles(s.lat_percentiles),
            other => return Err(format!("'{other}' is not an option a suite can set")),
        };
        Ok(Setting {
            // Recorded as given (`bs=4k`), as fio's JSON keeps a job file's text.
            text: text.trim().to_string(),
            value,
        })
    }

    /// The typed value.
    pub fn value(&self) -> Value {
        self.value
    }

    /// The text the job's options record.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// Where an option sits in a job's recorded options (fio's JSON order: `kb_base` and
/// `unit_base` first, `filename` last).
fn json_rank(name: &str) -> i8 {
    options::lookup(name).map_or(0, |d| match d.prio {
        p if p >= 2 => 1,
        p if p < 0 => -1,
        _ => 0,
    })
}

impl JobSpec {
    /// Sets one option of a built job, as if the job's section ended with it: the typed
    /// field changes, and the job's own options record it (in place when the job set it,
    /// else where fio's JSON order puts it).
    pub fn set(&mut self, setting: &Setting) {
        setting.value.apply(self);
        let name = setting.value.option();
        if let Some(o) = self.own_options.iter_mut().find(|o| o.name == name) {
            o.value = setting.text.clone();
            return;
        }
        let rank = json_rank(name);
        let at = self
            .own_options
            .iter()
            .rposition(|o| json_rank(&o.name) >= rank)
            .map_or(0, |i| i + 1);
        self.own_options.insert(
            at,
            TypedOption {
                name: name.to_string(),
                value: setting.text.clone(),
            },
        );
    }
}

impl JobSpec {
    /// Sets option `name` to `text` through the option table, as a line at the end of the
    /// job's section would (any option the table applies, `sim_volume=` and `runtime=`
    /// included), and records it among the job's options. The error names the option and what
    /// it allows.
    pub fn set_option(&mut self, name: &str, text: &str) -> Result<(), String> {
        let def = options::lookup(name.trim())
            .filter(|d| matches!(d.status, Status::Supported | Status::Partial(_)))
            .ok_or_else(|| format!("'{name}' is not an option iolens applies"))?;
        let apply = def
            .apply
            .ok_or_else(|| format!("'{name}' is not an option iolens applies"))?;
        apply(self, text.trim()).map_err(|e| format!("{}={text}: {e}", def.name))?;
        let recorded = TypedOption {
            name: def.name.to_string(),
            value: text.trim().to_string(),
        };
        match self.own_options.iter_mut().find(|o| o.name == def.name) {
            Some(o) => *o = recorded,
            None => {
                let rank = json_rank(def.name);
                let at = self
                    .own_options
                    .iter()
                    .rposition(|o| json_rank(&o.name) >= rank)
                    .map_or(0, |i| i + 1);
                self.own_options.insert(at, recorded);
            }
        }
        Ok(())
    }
}

impl crate::JobSet {
    /// Sets one option of every job (global options are left as they were written).
    pub fn set_all(&mut self, setting: &Setting) {
        for j in &mut self.jobs {
            j.set(setting);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_job_text, SystemEnvironment};

    fn job(text: &str) -> JobSpec {
        parse_job_text("t.fio", text, &SystemEnvironment)
            .unwrap()
            .jobs
            .remove(0)
    }

    #[test]
    fn a_setting_is_what_the_same_line_at_the_end_of_the_section_gives() {
        let base = "[a]\nrw=randread\nbs=8k\nfilename=/tmp/x\nsize=1m\n";
        for (name, text) in [
            ("iodepth", "32"),
            ("bs", "4k"),
            ("bs", "4k,64k"),
            ("rw", "randrw"),
            ("rwmixread", "70"),
            ("numjobs", "4"),
            ("rate_iops", "1k,500"),
            ("lat_percentiles", "1"),
            ("rate_process", "poisson"),
        ] {
            let mut varied = job(base);
            varied.set(&Setting::parse(name, text).unwrap());
            let rebuilt = job(&format!("{base}{name}={text}\n"));
            assert_eq!(varied.effective(), rebuilt.effective(), "{name}={text}");
            assert_eq!(
                (
                    varied.bs,
                    varied.rw,
                    varied.rwmixread,
                    varied.numjobs,
                    varied.lat_percentiles
                ),
                (
                    rebuilt.bs,
                    rebuilt.rw,
                    rebuilt.rwmixread,
                    rebuilt.numjobs,
                    rebuilt.lat_percentiles
                ),
                "{name}={text}"
            );
            assert_eq!(
                varied.own_options, rebuilt.own_options,
                "recorded options of {name}={text}"
            );
        }
    }

    #[test]
    fn values_are_checked_by_the_option_table() {
        let e = Setting::parse("rw", "randred").unwrap_err();
        assert!(e.contains("randread"), "the allowed values are listed: {e}");
        let e = Setting::parse("iodepth", "0").unwrap_err();
        assert!(e.starts_with("iodepth=0"), "{e}");
        assert!(Setting::parse("filename", "x").is_err());
        let s = Setting::parse("bs", "1Ki").unwrap();
        assert_eq!(s.value(), Value::Bs([1024; 3]), "1Ki");
    }

    #[test]
    fn any_option_is_set_through_the_table() {
        let base = "[a]\nrw=randread\nsize=1m\n";
        let mut j = job(base);
        j.set_option("sim_volume", "io1:iops=48000").unwrap();
        j.set_option("runtime", "30").unwrap();
        j.set_option("time_based", "1").unwrap();
        let rebuilt = job(&format!(
            "{base}sim_volume=io1:iops=48000\nruntime=30\ntime_based=1\n"
        ));
        assert_eq!(j.sim, rebuilt.sim);
        assert_eq!(
            (j.runtime, j.time_based),
            (rebuilt.runtime, rebuilt.time_based)
        );
        assert_eq!(
            j.own_options, rebuilt.own_options,
            "recorded as the file would"
        );
        let e = j.set_option("runtime", "soon").unwrap_err();
        assert!(e.starts_with("runtime=soon"), "{e}");
        assert!(j.set_option("frobnicate", "1").is_err());
    }

    #[test]
    fn typed_settings_record_their_canonical_text() {
        let mut j = job("[a]\nsize=1m\n");
        j.set(&Value::RateIops([750, 250, 250]).into());
        j.set(&Value::OpenLoop(true).into());
        let rec: Vec<(&str, &str)> = j
            .own_options
            .iter()
            .map(|o| (o.name.as_str(), o.value.as_str()))
            .collect();
        assert_eq!(
            rec,
            [("size", "1m"), ("rate_iops", "750,250"), ("open_loop", "1")]
        );
        assert_eq!(j.rate_iops, [750, 250, 250]);
    }
}
