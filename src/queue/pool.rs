//! A pool of model servers (the config file's `[[pool]]` tables): which member takes the
//! next job, which are set aside and until when, and what each did in a run.
//!
//! [`PoolPolicy`] decides, as pure code over a clock passed in: a job goes to the member
//! that is not set aside and has the most room (fewest calls running for its
//! `concurrency`; the first in the file on a tie), with the others that are not set aside
//! behind it as the job's fallbacks. A member that refuses, times out or answers 5xx is set
//! aside for [`FIRST_SET_ASIDE`], doubling each time it fails again up to
//! [`LONGEST_SET_ASIDE`]; an answer from it ends the doubling.
//!
//! [`Pool`] holds the policy and the members' clients for a [`super::JobRunner`]: a worker
//! takes a [`Lease`] on a member before it takes a job, and the job's call loop gets the
//! members in the lease's order, each wrapped so that what it answers reaches the policy.
//! The call loop knows nothing of the pool: it walks the servers it is given as it walks
//! fallbacks. A job holds one unit of room on one member at a time: when its call loop turns
//! to a fallback, the job gives back the unit it held and takes one on the fallback, waiting
//! while the fallback has none free, so no member runs more calls than its `concurrency`
//! (and two jobs falling back onto each other's member never wait for each other).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde::Serialize;
use tokio::sync::Notify;

use crate::compile::ProviderSlot;
use crate::config::Settings;
use crate::llm::{ChatRequest, ChatResponse, EventCallback, LlmError, ModelInfo, Provider};

/// How long a member is set aside the first time it fails.
pub const FIRST_SET_ASIDE: Duration = Duration::from_secs(5);
/// The longest a member is set aside, however often it failed.
pub const LONGEST_SET_ASIDE: Duration = Duration::from_secs(300);

/// What one member did in a run, as `compile --json` lists it under `pool`, and its
/// state now (the desktop's Queue screen).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PoolShare {
    /// The member's server.
    pub base_url: String,
    /// The model asked of it.
    pub model: String,
    /// Sources whose digest it wrote.
    pub compiled: u32,
    /// Source jobs it was asked for and did not finish: it failed (down, timed out, 5xx),
    /// or its answers could not be made valid and another member took the job over (or
    /// the job failed).
    pub failed: u32,
    /// How many times it was set aside.
    pub set_aside: u32,
    /// Calls it runs now.
    pub running: u32,
    /// Seconds until it is asked again, when it is set aside now.
    pub set_aside_for_secs: Option<u32>,
}

/// The state of one member, as the policy keeps it.
#[derive(Debug, Clone)]
struct Member {
    concurrency: usize,
    running: usize,
    /// When it may be asked again; `None` when it is not set aside.
    aside_until: Option<Instant>,
    /// Failures since its last answer: the next set-aside lasts
    /// `FIRST_SET_ASIDE * 2^strikes`.
    strikes: u32,
    compiled: u32,
    failed: u32,
    set_aside: u32,
}

/// Where a worker stands when it asks for a member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// Take this member; the job's servers are `order` (the member first, then the
    /// others that are not set aside, most room first).
    Member {
        /// The member chosen.
        member: usize,
        /// The servers of the job, in the order its call loop tries them.
        order: Vec<usize>,
    },
    /// Every member that is not set aside is busy: wait until one finishes a job.
    Busy,
    /// Every member is set aside: the first comes back at this time.
    AllSetAside(Instant),
}

/// The pure policy of a pool: which member next, which are set aside and until when. Time
/// comes in as an argument; nothing here reads a clock.
#[derive(Debug, Clone)]
pub struct PoolPolicy {
    members: Vec<Member>,
}

impl PoolPolicy {
    /// A pool of members that take `concurrency[i]` calls at once each (at least 1).
    pub fn new(concurrency: &[usize]) -> PoolPolicy {
        PoolPolicy {
            members: concurrency
                .iter()
                .map(|&c| Member {
                    concurrency: c.max(1),
                    running: 0,
                    aside_until: None,
                    strikes: 0,
                    compiled: 0,
                    failed: 0,
                    set_aside: 0,
                })
                .collect(),
        }
    }

    /// How many jobs the pool runs at once: the sum of its members' concurrency.
    pub fn capacity(&self) -> usize {
        self.members.iter().map(|m| m.concurrency).sum()
    }

    fn is_aside(&self, i: usize, now: Instant) -> bool {
        self.members[i].aside_until.is_some_and(|until| until > now)
    }

    /// The member with the most room at `now`, and the job's order of servers; or why
    /// there is none (see [`Choice`]). Choosing does not take the member: [`Self::take`]
    /// does.
    pub fn choose(&self, now: Instant) -> Choice {
        let mut ready: Vec<usize> = (0..self.members.len())
            .filter(|&i| !self.is_aside(i, now))
            .collect();
        if ready.is_empty() {
            let back = self
                .members
                .iter()
                .filter_map(|m| m.aside_until)
                .min()
                .unwrap_or(now);
            return Choice::AllSetAside(back);
        }
        // Most room first: fewest running for the member's concurrency (compared without
        // division), then the file's order.
        ready.sort_by(|&a, &b| {
            let (ma, mb) = (&self.members[a], &self.members[b]);
            (ma.running * mb.concurrency)
                .cmp(&(mb.running * ma.concurrency))
                .then(a.cmp(&b))
        });
        let Some(&member) = ready
            .iter()
            .find(|&&i| self.members[i].running < self.members[i].concurrency)
        else {
            return Choice::Busy;
        };
        let mut order = vec![member];
        order.extend(ready.into_iter().filter(|&i| i != member));
        Choice::Member { member, order }
    }

    /// Counts a job as running on `member`.
    pub fn take(&mut self, member: usize) {
        if let Some(m) = self.members.get_mut(member) {
            m.running += 1;
        }
    }

    /// Whether `member` runs fewer calls than its concurrency.
    pub fn has_room(&self, member: usize) -> bool {
        self.members
            .get(member)
            .is_some_and(|m| m.running < m.concurrency)
    }

    /// A job on `member` has ended.
    pub fn release(&mut self, member: usize) {
        if let Some(m) = self.members.get_mut(member) {
            m.running = m.running.saturating_sub(1);
        }
    }

    /// `member` refused, timed out or answered 5xx at `now`: it is set aside, for twice as
    /// long as the last time when it has not answered since. A member already set aside
    /// (another job's call failed at the same time) keeps its interval.
    pub fn failed(&mut self, member: usize, now: Instant) {
        if self.is_aside(member, now) {
            return;
        }
        let Some(m) = self.members.get_mut(member) else {
            return;
        };
        let interval = FIRST_SET_ASIDE
            .saturating_mul(2u32.saturating_pow(m.strikes))
            .min(LONGEST_SET_ASIDE);
        m.strikes = m.strikes.saturating_add(1);
        m.aside_until = Some(now + interval);
        m.set_aside += 1;
    }

    /// `member` answered (whatever the answer was worth): it is back in full.
    pub fn answered(&mut self, member: usize) {
        if let Some(m) = self.members.get_mut(member) {
            m.strikes = 0;
            m.aside_until = None;
        }
    }

    /// A source job has ended: `compiled_by` wrote its digest (none: it failed), and every
    /// other member in `tried` failed it.
    pub fn job_ended(&mut self, tried: &BTreeSet<usize>, compiled_by: Option<usize>) {
        for &i in tried {
            if Some(i) != compiled_by {
                if let Some(m) = self.members.get_mut(i) {
                    m.failed += 1;
                }
            }
        }
        if let Some(m) = compiled_by.and_then(|i| self.members.get_mut(i)) {
            m.compiled += 1;
        }
    }

    /// Each member's figures at `now`, with its server and model from `names`.
    pub fn shares(&self, names: &[(String, String)], now: Instant) -> Vec<PoolShare> {
        self.members
            .iter()
            .zip(names)
            .enumerate()
            .map(|(i, (m, (base_url, model)))| PoolShare {
                base_url: base_url.clone(),
                model: model.clone(),
                compiled: m.compiled,
                failed: m.failed,
                set_aside: m.set_aside,
                running: m.running as u32,
                set_aside_for_secs: self.is_aside(i, now).then(|| {
                    m.aside_until
                        .map(|until| {
                            until.saturating_duration_since(now).as_secs_f64().ceil() as u32
                        })
                        .unwrap_or(0)
                }),
            })
            .collect()
    }
}

/// A pool of model servers shared by a runner's workers: the policy, the clock it is read
/// with, and each member's client.
pub struct Pool {
    policy: Mutex<PoolPolicy>,
    slots: Vec<ProviderSlot>,
    names: Vec<(String, String)>,
    /// Woken when a member finishes a job or is set aside.
    changed: Notify,
    clock: Box<dyn Fn() -> Instant + Send + Sync>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("members", &self.names)
            .finish_non_exhaustive()
    }
}

impl Pool {
    /// A pool over `slots` (each member's client and model), named by `names` (base URL,
    /// model), each taking `concurrency[i]` calls at once, reading time from `clock`.
    pub fn new(
        slots: Vec<ProviderSlot>,
        names: Vec<(String, String)>,
        concurrency: &[usize],
        clock: Box<dyn Fn() -> Instant + Send + Sync>,
    ) -> Pool {
        Pool {
            policy: Mutex::new(PoolPolicy::new(concurrency)),
            slots,
            names,
            changed: Notify::new(),
            clock,
        }
    }

    /// A pool with tokio's clock (which tests may pause).
    pub fn with_tokio_clock(
        slots: Vec<ProviderSlot>,
        names: Vec<(String, String)>,
        concurrency: &[usize],
    ) -> Pool {
        Pool::new(
            slots,
            names,
            concurrency,
            Box::new(|| tokio::time::Instant::now().into_std()),
        )
    }

    fn policy(&self) -> std::sync::MutexGuard<'_, PoolPolicy> {
        self.policy.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many jobs the pool runs at once.
    pub fn capacity(&self) -> usize {
        self.policy().capacity()
    }

    /// Takes the member with the most room now, or says when to ask again: `Err(None)`
    /// when a member finishes a job ([`Self::changed`]), `Err(Some(t))` at `t` at the
    /// latest (every member is set aside).
    pub fn lease(self: &Arc<Self>) -> Result<Lease, Option<Instant>> {
        let now = (self.clock)();
        let mut policy = self.policy();
        match policy.choose(now) {
            Choice::Member { member, order } => {
                policy.take(member);
                Ok(Lease {
                    pool: Arc::clone(self),
                    member,
                    order,
                    tried: Arc::new(Mutex::new(Tried::default())),
                    holding: Arc::new(Mutex::new(Some(member))),
                })
            }
            Choice::Busy => Err(None),
            Choice::AllSetAside(back) => Err(Some(back)),
        }
    }

    /// How long from now until `back`, on the pool's clock.
    pub fn wait_for(&self, back: Instant) -> Duration {
        back.saturating_duration_since((self.clock)())
    }

    /// Resolves once a member finishes a job or is set aside.
    pub async fn changed(&self) {
        self.changed.notified().await;
    }

    /// Each member's figures now.
    pub fn shares(&self) -> Vec<PoolShare> {
        self.policy().shares(&self.names, (self.clock)())
    }

    fn failed(&self, member: usize) {
        let now = (self.clock)();
        self.policy().failed(member, now);
        self.changed.notify_waiters();
    }

    fn answered(&self, member: usize) {
        self.policy().answered(member);
    }

    /// Moves a job's unit of room to member `to` (a fallback its call loop turns to): the
    /// unit it holds is given back first, then one is taken on `to`, waiting while `to`
    /// has none free. Nothing is held while it waits (`holding` is `None`), so a job
    /// dropped then gives back nothing twice.
    async fn move_job(&self, holding: &Mutex<Option<usize>>, to: usize) {
        let held = *holding.lock().unwrap_or_else(PoisonError::into_inner);
        if held == Some(to) {
            return;
        }
        if let Some(from) = held {
            let mut policy = self.policy();
            policy.release(from);
            *holding.lock().unwrap_or_else(PoisonError::into_inner) = None;
            drop(policy);
            self.changed.notify_waiters();
        }
        loop {
            // Listening before looking, so a unit given back in between is not missed.
            let freed = self.changed.notified();
            tokio::pin!(freed);
            freed.as_mut().enable();
            {
                let mut policy = self.policy();
                if policy.has_room(to) {
                    policy.take(to);
                    *holding.lock().unwrap_or_else(PoisonError::into_inner) = Some(to);
                    return;
                }
            }
            freed.await;
        }
    }
}

/// Which members a job asked, and which answered last.
#[derive(Debug, Default)]
struct Tried {
    asked: BTreeSet<usize>,
    last_answer: Option<usize>,
}

/// A member taken for one job: its servers in order. Dropping it frees the room the job
/// holds (on the member, or on the fallback its calls moved to).
pub struct Lease {
    pool: Arc<Pool>,
    member: usize,
    order: Vec<usize>,
    tried: Arc<Mutex<Tried>>,
    /// The member whose room the job holds now (`None` while it waits for a fallback's).
    holding: Arc<Mutex<Option<usize>>>,
}

impl std::fmt::Debug for Lease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lease")
            .field("member", &self.member)
            .field("order", &self.order)
            .finish_non_exhaustive()
    }
}

impl Lease {
    /// The member chosen for the job.
    pub fn member(&self) -> usize {
        self.member
    }

    /// `kind:model` of the member chosen, for the job's events.
    pub fn label(&self) -> String {
        self.pool.slots[self.member].label()
    }

    /// The job's servers for its call loop, the chosen member first: each reports what it
    /// answers to the pool.
    pub fn slots(&self) -> Vec<ProviderSlot> {
        self.order
            .iter()
            .map(|&i| {
                let slot = &self.pool.slots[i];
                ProviderSlot {
                    provider: Arc::new(Reporting {
                        inner: Arc::clone(&slot.provider),
                        member: i,
                        pool: Arc::clone(&self.pool),
                        tried: Arc::clone(&self.tried),
                        holding: Arc::clone(&self.holding),
                    }),
                    model: slot.model.clone(),
                }
            })
            .collect()
    }

    /// The source job ended, compiled or not: the member that answered last wrote the
    /// digest when it compiled, and every other member asked failed it.
    pub fn source_ended(&self, compiled: bool) {
        let tried = self.tried.lock().unwrap_or_else(PoisonError::into_inner);
        let by = if compiled { tried.last_answer } else { None };
        self.pool.policy().job_ended(&tried.asked, by);
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let mut policy = self.pool.policy();
        if let Some(held) = self
            .holding
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            policy.release(held);
        }
        drop(policy);
        self.pool.changed.notify_waiters();
    }
}

/// A member's client as one job sees it: a call first moves the job's room to this member
/// (a fallback waits for room there), then is passed on, and what came of it is told to
/// the pool (an answer, or a failure that sets the member aside).
struct Reporting {
    inner: Arc<dyn Provider>,
    member: usize,
    pool: Arc<Pool>,
    tried: Arc<Mutex<Tried>>,
    holding: Arc<Mutex<Option<usize>>>,
}

#[async_trait]
impl Provider for Reporting {
    async fn chat(
        &self,
        req: &ChatRequest,
        events: EventCallback<'_>,
    ) -> Result<ChatResponse, LlmError> {
        self.pool.move_job(&self.holding, self.member).await;
        let result = self.inner.chat(req, events).await;
        if matches!(&result, Err(e) if e.is_cancelled()) {
            return result;
        }
        {
            let mut tried = self.tried.lock().unwrap_or_else(PoisonError::into_inner);
            tried.asked.insert(self.member);
            if result.is_ok() {
                tried.last_answer = Some(self.member);
            }
        }
        match &result {
            Ok(_) => self.pool.answered(self.member),
            Err(e) if e.is_transport() => self.pool.failed(self.member),
            Err(_) => {}
        }
        result
    }

    async fn list_models(&self) -> Result<Vec<ModelInfo>, LlmError> {
        self.inner.list_models().await
    }

    async fn context_length(&self, model: &str) -> Result<Option<u64>, LlmError> {
        self.inner.context_length(model).await
    }

    fn kind(&self) -> crate::llm::ProviderKind {
        self.inner.kind()
    }

    fn base_url(&self) -> &str {
        self.inner.base_url()
    }
}

/// The pool of `settings`, when it has one its members can be set up for (a member that
/// cannot be set up fails each job as a provider would).
pub(super) fn pool_of(settings: &Settings) -> Option<Arc<Pool>> {
    if !settings.pool {
        return None;
    }
    let slots = crate::compile::providers_from_settings(settings).ok()?;
    let names = settings
        .providers
        .iter()
        .map(|p| (p.base_url.clone(), p.model.clone()))
        .collect();
    let concurrency: Vec<usize> = settings.providers.iter().map(|p| p.concurrency).collect();
    Some(Arc::new(Pool::with_tokio_clock(slots, names, &concurrency)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(start: Instant, secs: u64) -> Instant {
        start + Duration::from_secs(secs)
    }

    fn chosen(policy: &PoolPolicy, now: Instant) -> (usize, Vec<usize>) {
        match policy.choose(now) {
            Choice::Member { member, order } => (member, order),
            other => panic!("no member: {other:?}"),
        }
    }

    #[test]
    fn jobs_go_to_the_member_with_the_most_room() {
        let t = Instant::now();
        let mut p = PoolPolicy::new(&[1, 2]);
        assert_eq!(p.capacity(), 3);
        assert_eq!(chosen(&p, t), (0, vec![0, 1]), "a tie: the file's order");
        p.take(0);
        assert_eq!(chosen(&p, t), (1, vec![1, 0]));
        p.take(1);
        assert_eq!(chosen(&p, t), (1, vec![1, 0]), "member 2 takes two at once");
        p.take(1);
        assert_eq!(p.choose(t), Choice::Busy);
        p.release(0);
        assert_eq!(chosen(&p, t), (0, vec![0, 1]));
    }

    #[test]
    fn a_failing_member_is_set_aside_for_a_growing_interval_and_its_jobs_go_to_the_others() {
        let t = Instant::now();
        let mut p = PoolPolicy::new(&[1, 1]);
        p.failed(0, t);
        assert_eq!(chosen(&p, t), (1, vec![1]), "not even as a fallback");
        p.take(1);
        assert_eq!(p.choose(t), Choice::Busy, "member 1 waits its turn");
        p.release(1);
        // Back after the first interval, then set aside twice as long, and so on.
        assert_eq!(chosen(&p, at(t, 4)), (1, vec![1]));
        assert_eq!(chosen(&p, at(t, 5)), (0, vec![0, 1]));
        p.failed(0, at(t, 5));
        assert_eq!(chosen(&p, at(t, 14)), (1, vec![1]));
        assert_eq!(chosen(&p, at(t, 15)).0, 0);
        p.failed(0, at(t, 15));
        assert_eq!(chosen(&p, at(t, 34)).0, 1);
        assert_eq!(chosen(&p, at(t, 35)).0, 0);
        // Never longer than the longest interval.
        for _ in 0..20 {
            p.failed(0, at(t, 35));
            p.answered(1);
        }
        let shares = p.shares(
            &[("a".into(), "m".into()), ("b".into(), "m".into())],
            at(t, 35),
        );
        assert_eq!(shares[0].set_aside, 4, "already set aside: not again");
        assert_eq!(shares[0].set_aside_for_secs, Some(40));
        let mut p2 = p.clone();
        for i in 0..20 {
            let now = at(t, 1_000 * (i + 1));
            p2.failed(0, now);
            assert_eq!(chosen(&p2, now + LONGEST_SET_ASIDE).0, 0);
        }
        // An answer ends the doubling.
        p.answered(0);
        assert_eq!(chosen(&p, at(t, 36)).0, 0);
        p.failed(0, at(t, 36));
        assert_eq!(chosen(&p, at(t, 40)).0, 1);
        assert_eq!(chosen(&p, at(t, 41)).0, 0, "the first interval again");
    }

    #[test]
    fn when_every_member_is_set_aside_the_first_to_come_back_is_named() {
        let t = Instant::now();
        let mut p = PoolPolicy::new(&[1, 1]);
        p.failed(0, t);
        p.failed(1, at(t, 2));
        assert_eq!(p.choose(at(t, 3)), Choice::AllSetAside(at(t, 5)));
        assert_eq!(chosen(&p, at(t, 5)), (0, vec![0]));
    }

    #[test]
    fn a_job_counts_for_the_member_that_wrote_it_and_against_those_that_failed_it() {
        let t = Instant::now();
        let mut p = PoolPolicy::new(&[1, 1, 1]);
        p.job_ended(&BTreeSet::from([0, 1]), Some(1));
        p.job_ended(&BTreeSet::from([2]), Some(2));
        p.job_ended(&BTreeSet::from([0, 2]), None);
        let names: Vec<(String, String)> = ["a", "b", "c"]
            .iter()
            .map(|u| (u.to_string(), "m".to_string()))
            .collect();
        let figures: Vec<(u32, u32)> = p
            .shares(&names, t)
            .iter()
            .map(|s| (s.compiled, s.failed))
            .collect();
        assert_eq!(figures, [(0, 2), (1, 0), (1, 1)]);
    }

    /// A job whose calls fall back to another member takes room there (waiting while it
    /// has none) and gives back the room it held, so no member runs more than its
    /// concurrency; its lease then frees the fallback's room, not the member's.
    #[tokio::test(start_paused = true)]
    async fn a_fallback_waits_for_room_on_its_member_and_moves_the_job_there() {
        let names = vec![("a".into(), "m".into()), ("b".into(), "m".into())];
        let pool = Arc::new(Pool::with_tokio_clock(Vec::new(), names, &[1, 1]));
        let running =
            |pool: &Pool| -> Vec<u32> { pool.shares().iter().map(|s| s.running).collect() };
        let a = pool.lease().expect("a job on member 0");
        let b = pool.lease().expect("a job on member 1");
        assert_eq!((a.member(), b.member()), (0, 1));

        // A's call loop turns to member 1, which B fills: A waits, holding nothing.
        let holding = Arc::clone(&a.holding);
        let c;
        {
            let moving = pool.move_job(&holding, 1);
            tokio::pin!(moving);
            let waited = tokio::time::timeout(Duration::from_secs(60), moving.as_mut()).await;
            assert!(waited.is_err(), "member 1 has no room while B runs");
            assert_eq!(running(&pool), [0, 1], "A gave its room on member 0 back");
            c = pool.lease().expect("member 0 is free for another job");
            assert_eq!(c.member(), 0);
            drop(b);
            moving.await;
        }
        assert_eq!(
            running(&pool),
            [1, 1],
            "A runs on member 1 now, C on member 0"
        );
        drop(a);
        assert_eq!(
            running(&pool),
            [1, 0],
            "A's lease frees member 1, where it ran"
        );
        drop(c);
        assert_eq!(running(&pool), [0, 0]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_pool_on_tokio_s_clock_gives_a_member_back_once_its_interval_has_passed() {
        let slots = Vec::new();
        let pool = Arc::new(Pool::with_tokio_clock(
            slots,
            vec![("a".into(), "m".into())],
            &[1],
        ));
        pool.failed(0);
        let Err(Some(back)) = pool.lease() else {
            panic!("the only member is set aside");
        };
        tokio::time::sleep_until(tokio::time::Instant::from_std(back)).await;
        let lease = pool.lease().expect("back after its interval");
        assert_eq!(lease.member(), 0);
        assert!(pool.lease().is_err(), "busy while leased");
        drop(lease);
        assert!(pool.lease().is_ok(), "free again");
    }
}
