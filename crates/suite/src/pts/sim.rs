//! `iolens pts --simulate`: the PTS method run against a modelled device instead of a real one,
//! through iolens's simulated volume (`sim_iops`/`sim_bw`/`sim_volume` job options), so the
//! method itself can be exercised and tested where no real device behaves reproducibly (a
//! loaded machine swings zram by tens of percent).
//!
//! The device's state lives here, between stages: a flash SSD's fresh-to-steady transition
//! (it writes at its fresh-out-of-box rate until its spare area is used up by random writes,
//! then falls towards its steady rate as garbage collection sets in), the flash translation
//! layer of a `flash` model (which pages of which erase blocks hold valid data; its greedy
//! garbage collection's write amplification sets the rate) and a cloud volume's burst bucket.
//! Each stage runs with the limits of the state at its start; a purge resets the state.

use super::cloud::Bucket;

/// A flash SSD's fresh-to-steady model.
#[derive(Debug, Clone, PartialEq)]
pub struct SsdModel {
    /// IOPS once in steady state.
    pub steady_iops: f64,
    /// IOPS fresh out of the box (after a purge).
    pub fresh_iops: f64,
    /// Bandwidth limit in bytes/s, fresh or not.
    pub bw: Option<f64>,
    /// Random-write bytes after a purge before the cliff (the spare area).
    pub cliff: u64,
    /// Random-write bytes over which the rate then falls by a factor e towards steady.
    pub decay: u64,
    /// Base latency, µs.
    pub latency_us: f64,
}

impl SsdModel {
    /// The default model scaled to `capacity`: 4,000 IOPS steady, 12,000 fresh, 200 MB/s,
    /// the cliff after half the capacity in random writes, decaying over one capacity.
    pub fn default_for(capacity: u64) -> SsdModel {
        SsdModel {
            steady_iops: 4000.0,
            fresh_iops: 12000.0,
            bw: Some(200e6),
            cliff: capacity / 2,
            decay: capacity.max(1),
            latency_us: 100.0,
        }
    }

    /// Parses `ssd[:key=value,...]` (keys `iops`, `fresh`, `bw`, `cliff`, `decay`, `lat`;
    /// sizes take k/m/g suffixes or `x` for a multiple of the capacity).
    pub fn parse(s: &str, capacity: u64) -> Result<SsdModel, String> {
        let mut m = SsdModel::default_for(capacity);
        let rest = match s.split_once(':') {
            Some(("ssd", r)) => r,
            None if s == "ssd" => "",
            _ => {
                return Err(format!(
                    "--simulate: unknown model '{s}'; allowed: ssd[:iops=N,fresh=N,bw=SIZE,cliff=SIZE|Nx,decay=SIZE|Nx,lat=USEC] (or give --volume=SPEC)"
                ))
            }
        };
        let size = |k: &str, v: &str| -> Result<u64, String> {
            if let Some(x) = v.strip_suffix('x') {
                let f: f64 = x
                    .parse()
                    .map_err(|_| format!("--simulate: {k}={v}: expected a size or Nx"))?;
                return Ok((capacity as f64 * f) as u64);
            }
            let t = v.to_ascii_lowercase();
            let (n, mult) = match t.chars().last() {
                Some('k') => (&t[..t.len() - 1], 1u64 << 10),
                Some('m') => (&t[..t.len() - 1], 1 << 20),
                Some('g') => (&t[..t.len() - 1], 1 << 30),
                _ => (t.as_str(), 1),
            };
            n.parse::<f64>()
                .map(|f| (f * mult as f64) as u64)
                .map_err(|_| format!("--simulate: {k}={v}: expected a size (e.g. 256m) or Nx"))
        };
        for kv in pairs(rest) {
            let (k, v) = kv?;
            let num = || positive(k, v);
            match k {
                "iops" => m.steady_iops = num()?,
                "fresh" => m.fresh_iops = num()?,
                "bw" => m.bw = Some(size(k, v)? as f64),
                "cliff" => m.cliff = size(k, v)?,
                "decay" => m.decay = size(k, v)?.max(1),
                "lat" => m.latency_us = num()?,
                _ => {
                    return Err(format!(
                        "--simulate: unknown key '{k}'; allowed: iops, fresh, bw, cliff, decay, lat"
                    ))
                }
            }
        }
        Ok(m)
    }

    /// IOPS after `random_written` bytes of random writes since the purge.
    pub fn iops_after(&self, random_written: u64) -> f64 {
        if random_written <= self.cliff {
            return self.fresh_iops;
        }
        let x = (random_written - self.cliff) as f64 / self.decay as f64;
        self.steady_iops + (self.fresh_iops - self.steady_iops) * (-x).exp()
    }
}

/// A flash SSD modelled page by page: a page-mapped flash translation layer over the logical
/// capacity plus `op` of it, in erase blocks of 64 pages, whose greedy garbage collection
/// (the block with the fewest valid pages is collected, its valid pages copied) sets the write
/// amplification; the device writes `raw_iops` flash pages a second, so the host gets that over
/// the write amplification of its recent writes.
#[derive(Debug, Clone, PartialEq)]
pub struct FlashModel {
    /// Flash page writes a second (the host's IOPS when nothing is collected).
    pub raw_iops: f64,
    /// Over-provisioning: spare flash as a share of the logical capacity.
    pub op: f64,
    /// Bandwidth limit in bytes/s.
    pub bw: Option<f64>,
    /// Base latency, µs.
    pub latency_us: f64,
}

impl FlashModel {
    /// Parses `flash[:iops=N,op=RATIO,bw=SIZE,lat=USEC]` (defaults: 12,000 page writes a
    /// second, 15 % over-provisioning, 200 MB/s, 100 µs).
    pub fn parse(s: &str) -> Result<FlashModel, String> {
        let mut m = FlashModel {
            raw_iops: 12000.0,
            op: 0.15,
            bw: Some(200e6),
            latency_us: 100.0,
        };
        let rest = match s.split_once(':') {
            Some(("flash", r)) => r,
            None if s == "flash" => "",
            _ => return Err(format!("--simulate: '{s}' is not a flash model")),
        };
        for kv in pairs(rest) {
            let (k, v) = kv?;
            let num = || positive(k, v);
            match k {
                "iops" => m.raw_iops = num()?,
                "op" => {
                    m.op = num()?;
                    if m.op >= 1.0 {
                        return Err(format!("--simulate: op={v}: expected a ratio below 1"));
                    }
                }
                "bw" => {
                    let t = v.to_ascii_lowercase();
                    let (n, mult) = match t.chars().last() {
                        Some('k') => (&t[..t.len() - 1], 1e3),
                        Some('m') => (&t[..t.len() - 1], 1e6),
                        Some('g') => (&t[..t.len() - 1], 1e9),
                        _ => (t.as_str(), 1.0),
                    };
                    m.bw =
                        Some(n.parse::<f64>().map(|f| f * mult).map_err(|_| {
                            format!("--simulate: bw={v}: expected a rate (e.g. 200m)")
                        })?);
                }
                "lat" => m.latency_us = num()?,
                _ => {
                    return Err(format!(
                        "--simulate: unknown key '{k}'; allowed: iops, op, bw, lat"
                    ))
                }
            }
        }
        Ok(m)
    }
}

/// Pages per erase block of the flash model.
const PAGES_PER_BLOCK: usize = 64;
/// Logical page size of the flash model (the writes it is fed are counted in these).
pub const FLASH_PAGE: u64 = 4096;

/// A page-mapped flash translation layer with greedy garbage collection.
#[derive(Debug, Clone, PartialEq)]
pub struct Ftl {
    /// Physical page of each logical page (u32::MAX: never written).
    l2p: Vec<u32>,
    /// Logical page of each physical page (u32::MAX: free or invalid).
    p2l: Vec<u32>,
    /// Valid pages per block.
    valid: Vec<u32>,
    /// Erased blocks.
    free: Vec<u32>,
    /// The block being written and its next page.
    open: u32,
    next: usize,
    /// Host page writes so far.
    pub host: u64,
    /// Flash page writes so far (host writes and garbage collection's copies).
    pub flash: u64,
    /// Write amplification of recent writes (moving average over about 1/16 of the
    /// capacity).
    pub recent_wa: f64,
    rng: iolens_run::rand::Taus,
}

impl Ftl {
    /// An erased device of `logical_pages` pages with over-provisioning `op`.
    pub fn new(logical_pages: u64, op: f64) -> Ftl {
        let lp = logical_pages.max(1) as usize;
        let blocks = ((lp as f64 * (1.0 + op)).ceil() as usize)
            .div_ceil(PAGES_PER_BLOCK)
            .max(4);
        let mut free: Vec<u32> = (1..blocks as u32).rev().collect();
        free.shrink_to_fit();
        Ftl {
            l2p: vec![u32::MAX; lp],
            p2l: vec![u32::MAX; blocks * PAGES_PER_BLOCK],
            valid: vec![0; blocks],
            free,
            open: 0,
            next: 0,
            host: 0,
            flash: 0,
            recent_wa: 1.0,
            rng: iolens_run::rand::Taus::new(0x5eed_f1a5),
        }
    }

    /// The logical pages.
    pub fn pages(&self) -> u64 {
        self.l2p.len() as u64
    }

    fn program(&mut self, lpn: u32) {
        if self.next == PAGES_PER_BLOCK {
            // The open block is full: the next erased one (garbage collection keeps one).
            self.open = self.free.pop().unwrap_or(self.open);
            self.next = 0;
        }
        let ppn = self.open as usize * PAGES_PER_BLOCK + self.next;
        self.next += 1;
        self.p2l[ppn] = lpn;
        self.l2p[lpn as usize] = ppn as u32;
        self.valid[self.open as usize] += 1;
        self.flash += 1;
    }

    /// Collects the block with the fewest valid pages (not the open one): its valid pages
    /// are copied to the open block and it is erased.
    fn collect(&mut self) {
        let victim = (0..self.valid.len() as u32)
            .filter(|b| *b != self.open && !self.free.contains(b))
            .min_by_key(|b| self.valid[*b as usize]);
        let Some(v) = victim else {
            return;
        };
        for p in 0..PAGES_PER_BLOCK {
            let ppn = v as usize * PAGES_PER_BLOCK + p;
            let lpn = self.p2l[ppn];
            if lpn != u32::MAX {
                self.p2l[ppn] = u32::MAX;
                self.valid[v as usize] -= 1;
                self.program(lpn);
            }
        }
        self.free.push(v);
    }

    /// One host write of logical page `lpn`.
    pub fn write(&mut self, lpn: u64) {
        let lpn = (lpn % self.l2p.len() as u64) as u32;
        let before = self.flash;
        let old = self.l2p[lpn as usize];
        if old != u32::MAX {
            self.p2l[old as usize] = u32::MAX;
            self.valid[old as usize / PAGES_PER_BLOCK] -= 1;
        }
        // Keep two erased blocks: one to move into, one to spare.
        while self.free.len() < 2 {
            let f = self.free.len();
            self.collect();
            if self.free.len() <= f {
                break;
            }
        }
        self.program(lpn);
        self.host += 1;
        let a = (16.0 / self.l2p.len() as f64).min(1.0);
        self.recent_wa = self.recent_wa * (1.0 - a) + (self.flash - before) as f64 * a;
    }

    /// Host writes at uniformly random pages that fit in `flash_budget` flash page writes
    /// (at most `cap` of them), on a copy: the stage's rate, for a device that writes
    /// `flash_budget` pages in the stage.
    pub fn random_writes_within(&self, flash_budget: u64, cap: u64) -> u64 {
        let mut c = self.clone();
        let n = c.l2p.len() as u64;
        let (h0, f0) = (c.host, c.flash);
        while c.flash - f0 < flash_budget && c.host - h0 < cap {
            let lpn = c.rng.below(n);
            c.write(lpn);
        }
        c.host - h0
    }

    /// `pages` host writes at uniformly random logical pages.
    pub fn write_random(&mut self, pages: u64) {
        let n = self.l2p.len() as u64;
        for _ in 0..pages {
            let lpn = self.rng.below(n);
            self.write(lpn);
        }
    }

    /// `pages` host writes in logical order from page 0, wrapping.
    pub fn write_sequential(&mut self, pages: u64) {
        let n = self.l2p.len() as u64;
        for i in 0..pages {
            self.write(i % n);
        }
    }

    /// One SPRandom pass over the logical capacity with over-provisioning `op` (the blocks
    /// iolens's `sprandom` writes, in its order), at most `pages` writes.
    pub fn write_sprandom(&mut self, op: f64, pages: u64) {
        let n = self.l2p.len() as u64;
        let Ok(mut s) =
            iolens_run::sprandom::Sprandom::new(n * FLASH_PAGE, FLASH_PAGE, op, 100, 0, 7)
        else {
            return self.write_random(pages);
        };
        let mut done = 0;
        while let (true, Some(b)) = (done < pages, s.next_block()) {
            self.write(b);
            done += 1;
        }
    }
}

/// What is simulated.
#[derive(Debug, Clone, PartialEq)]
pub enum SimDevice {
    /// A flash SSD with a fresh-to-steady transition.
    Ssd(SsdModel),
    /// A flash SSD modelled page by page (its translation layer and garbage collection).
    Flash(FlashModel),
    /// A provisioned volume (`sim_volume=SPEC`) with its burst bucket, when it has one.
    Volume {
        /// The volume spec.
        spec: String,
        /// Its bucket.
        bucket: Option<Bucket>,
    },
}

/// The simulated device's state between stages.
#[derive(Debug, Clone, PartialEq)]
pub struct SimState {
    /// Random-write bytes since the purge.
    pub random_written: u64,
    /// Credits in the bucket.
    pub balance: f64,
    /// A `flash` model's translation layer (made at the first write after a purge).
    pub ftl: Option<Box<Ftl>>,
}

/// Parses `--simulate`'s model: `ssd[:...]` ([`SsdModel::parse`]) or `flash[:...]`
/// ([`FlashModel::parse`]) over `capacity` bytes.
pub fn parse_device(s: &str, capacity: u64) -> Result<SimDevice, String> {
    if s == "flash" || s.starts_with("flash:") {
        FlashModel::parse(s).map(SimDevice::Flash)
    } else {
        SsdModel::parse(s, capacity).map(SimDevice::Ssd)
    }
}

impl SimDevice {
    /// The state right after a purge, with the bucket at `balance` credits (None: full).
    pub fn fresh(&self, balance: Option<f64>) -> SimState {
        let full = match self {
            SimDevice::Volume {
                bucket: Some(b), ..
            } => b.full,
            _ => 0.0,
        };
        SimState {
            random_written: 0,
            balance: balance.unwrap_or(full).min(full),
            ftl: None,
        }
    }

    /// The translation layer of a `flash` model over `active` bytes, made when first needed.
    fn ftl<'s>(&self, state: &'s mut SimState, active: u64) -> Option<&'s mut Ftl> {
        let SimDevice::Flash(m) = self else {
            return None;
        };
        Some(
            state
                .ftl
                .get_or_insert_with(|| Box::new(Ftl::new(active / FLASH_PAGE, m.op))),
        )
    }

    /// Advances the state past `bytes` of random writes over `active` bytes.
    pub fn random_writes(&self, state: &mut SimState, active: u64, bytes: u64) {
        state.random_written += bytes;
        if let Some(f) = self.ftl(state, active) {
            f.write_random(bytes / FLASH_PAGE);
        }
    }

    /// Advances the state past the preconditioning's `bytes`: WIPC's sequential passes, or
    /// SPRandom's random pass.
    pub fn preconditioned(
        &self,
        state: &mut SimState,
        how: super::Precondition,
        active: u64,
        bytes: u64,
    ) {
        match how {
            super::Precondition::Wipc => {
                if let Some(f) = self.ftl(state, active) {
                    f.write_sequential(bytes / FLASH_PAGE);
                }
            }
            super::Precondition::Sprandom { op } => {
                state.random_written += bytes;
                if let Some(f) = self.ftl(state, active) {
                    f.write_sprandom(op, bytes / FLASH_PAGE);
                }
            }
        }
    }

    /// The `[global]` lines of a stage lasting `stage_s` seconds from `state`.
    pub fn job_lines(&self, state: &SimState, stage_s: f64) -> String {
        match self {
            SimDevice::Ssd(m) => {
                let mut t = format!(
                    "sim_iops={}\nsim_latency={}us\n",
                    m.iops_after(state.random_written).round().max(1.0) as u64,
                    m.latency_us
                );
                if let Some(bw) = m.bw {
                    t.push_str(&format!("sim_bw={}\n", bw as u64));
                }
                t
            }
            SimDevice::Flash(m) => {
                // The stage's random writes the flash's page rate allows once garbage
                // collection's copies are paid (tried on a copy of the translation layer, at
                // most 8 capacities); a device never written collects nothing.
                let iops = match &state.ftl {
                    Some(f) if stage_s > 0.0 => {
                        let budget = (m.raw_iops * stage_s).max(1.0) as u64;
                        f.random_writes_within(budget, 8 * f.pages()) as f64 / stage_s
                    }
                    _ => m.raw_iops,
                };
                let mut t = format!(
                    "sim_iops={}\nsim_latency={}us\n",
                    iops.round().max(1.0) as u64,
                    m.latency_us
                );
                if let Some(bw) = m.bw {
                    t.push_str(&format!("sim_bw={}\n", bw as u64));
                }
                t
            }
            SimDevice::Volume { spec, bucket } => {
                let mut t = format!("sim_volume={spec}\n");
                if let Some(b) = bucket {
                    // Burst while the credits last, blended over the stage.
                    let share = if stage_s > 0.0 {
                        (state.balance / ((b.burst - b.base) * stage_s)).min(1.0)
                    } else {
                        1.0
                    };
                    let limit = (b.base + (b.burst - b.base) * share).max(1.0) as u64;
                    match b.kind {
                        super::cloud::CreditKind::Iops { .. } => {
                            t.push_str(&format!("sim_iops={limit}\n"))
                        }
                        super::cloud::CreditKind::Bytes => t.push_str(&format!("sim_bw={limit}\n")),
                    }
                }
                t
            }
        }
    }
}

/// Inserts `lines` at the top of a job text's `[global]` section.
pub fn with_lines(job: &str, lines: &str) -> String {
    job.replacen("[global]\n", &format!("[global]\n{lines}"), 1)
}

/// The `key=value` pairs of a model's comma list.
fn pairs(rest: &str) -> impl Iterator<Item = Result<(&str, &str), String>> {
    rest.split(',').filter(|x| !x.is_empty()).map(|kv| {
        kv.split_once('=')
            .ok_or_else(|| format!("--simulate: '{kv}' is not key=value"))
    })
}

/// `v` as a number above 0.
fn positive(k: &str, v: &str) -> Result<f64, String> {
    v.parse::<f64>()
        .ok()
        .filter(|x| *x > 0.0)
        .ok_or_else(|| format!("--simulate: {k}={v}: expected a positive number"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ssd_model_is_fresh_until_the_cliff_then_falls_to_steady() {
        let m =
            SsdModel::parse("ssd:iops=1000,fresh=3000,cliff=100m,decay=0.5x", 400 << 20).unwrap();
        assert_eq!(m.decay, 200 << 20);
        assert_eq!(m.iops_after(0), 3000.0);
        assert_eq!(m.iops_after(100 << 20), 3000.0);
        let one_decay = m.iops_after(300 << 20);
        assert!(
            (one_decay - (1000.0 + 2000.0 / std::f64::consts::E)).abs() < 1e-6,
            "{one_decay}"
        );
        assert!((m.iops_after(10 << 30) - 1000.0).abs() < 1e-6);
        assert!(SsdModel::parse("hdd", 1).is_err());
        assert!(SsdModel::parse("ssd:speed=3", 1)
            .unwrap_err()
            .contains("allowed: iops"));
        let d = SimDevice::Ssd(m);
        let lines = d.job_lines(&d.fresh(None), 1.0);
        assert!(
            lines.contains("sim_iops=3000\n") && lines.contains("sim_bw=200000000\n"),
            "{lines}"
        );
    }

    #[test]
    fn a_simulated_volume_bursts_while_its_credits_last() {
        let b = Bucket::of_volume("gp2:size=100g").unwrap().unwrap();
        let d = SimDevice::Volume {
            spec: "gp2:size=100g".into(),
            bucket: Some(b.clone()),
        };
        let full = d.fresh(None);
        assert_eq!(full.balance, b.full);
        assert!(d.job_lines(&full, 10.0).contains("sim_iops=3000\n"));
        // Credits for half a 10 s stage above the baseline: half the burst.
        let half = d.fresh(Some((b.burst - b.base) * 5.0));
        assert!(d.job_lines(&half, 10.0).contains("sim_iops=1650\n"));
        let empty = d.fresh(Some(0.0));
        assert!(d.job_lines(&empty, 10.0).contains("sim_iops=300\n"));
        assert_eq!(
            with_lines("[global]\nrw=read\n", "sim_iops=1\n"),
            "[global]\nsim_iops=1\nrw=read\n"
        );
    }

    /// Greedy garbage collection's steady state with 15 % over-provisioning: a write
    /// amplification near Desnoyers' 3.98 (alpha = 1.15) and fio's 0.5/op + 0.7 = 4.03.
    /// From WIPC's two sequential passes the first random writes still find the spare area
    /// empty (write amplification near 1) and a stage runs faster than at steady state; from
    /// an SPRandom pass they are at steady state at once, and so is the rate a stage gets.
    #[test]
    fn an_sprandom_pass_leaves_the_flash_at_random_write_steady_state() {
        let n = 16384u64;
        let mut f = Ftl::new(n, 0.15);
        f.write_random(8 * n);
        let steady = f.recent_wa;
        assert!(
            (3.5..4.3).contains(&steady),
            "steady write amplification {steady}"
        );
        let first_quarter = |pre: super::super::Precondition| {
            let d = SimDevice::Flash(FlashModel::parse("flash").unwrap());
            let mut s = d.fresh(None);
            let bytes = pre.bytes(n * FLASH_PAGE, 2);
            d.preconditioned(&mut s, pre, n * FLASH_PAGE, bytes);
            let lines = d.job_lines(&s, 1.0);
            let f = s.ftl.as_mut().expect("a translation layer");
            let (h, fl) = (f.host, f.flash);
            f.write_random(n / 4);
            ((f.flash - fl) as f64 / (f.host - h) as f64, lines)
        };
        let (wa, lines) = first_quarter(super::super::Precondition::Sprandom { op: 0.15 });
        assert!(
            (wa - steady).abs() < 0.1 * steady,
            "after SPRandom the first quarter capacity of random writes amplifies {wa:.2}, steady {steady:.2}"
        );
        let iops: f64 = lines
            .lines()
            .find_map(|l| l.strip_prefix("sim_iops="))
            .and_then(|v| v.parse().ok())
            .expect("sim_iops");
        assert!(
            (iops - 12000.0 / steady).abs() < 0.15 * 12000.0 / steady,
            "after SPRandom a 1 s stage gets {iops} IOPS, steady is {:.0}",
            12000.0 / steady
        );
        let (wa, lines) = first_quarter(super::super::Precondition::Wipc);
        assert!(
            wa < 0.75 * steady,
            "after WIPC the spare area is still empty: {wa:.2}, steady {steady:.2}"
        );
        let iops: f64 = lines
            .lines()
            .find_map(|l| l.strip_prefix("sim_iops="))
            .and_then(|v| v.parse().ok())
            .expect("sim_iops");
        assert!(
            iops > 1.3 * 12000.0 / steady,
            "after WIPC a 1 s stage runs on the empty spare area first: {iops} IOPS, steady {:.0}",
            12000.0 / steady
        );
    }
}
