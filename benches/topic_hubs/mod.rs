//! The `hubs` part of the `topic_pages` bench (issue 22, "Pages that many sources feed"):
//! a concept named by 30, 120 and 480 notes, and what writing its page costs.

use wikimind::compile::estimate_tokens;

use crate::wiki_lab::Lab;
use crate::SERVER_CONTEXT;

/// The sizes of hub the `hubs` part builds.
const HUB_SIZES: [usize; 3] = [30, 120, 480];

/// Hub note `i`: its own topic, naming the concept `espresso` in every sentence, in words
/// no other note uses.
fn hub_note(i: usize) -> String {
    format!(
        "# Grinder {i}\n\nGrinder {i} pulls **espresso** at {} bars on dial {i}.\n\n\
         The burrs of grinder {i} are set to step {} for **espresso**.\n\n\
         Grinder {i} holds {} grams of beans for **espresso**.\n",
        6 + i % 5,
        i * 3,
        100 + i
    )
}

/// What writing the hub cost once.
#[derive(Debug, Clone, Copy, Default)]
struct HubCost {
    calls: u64,
    tokens_in: u64,
    tokens_out: u64,
    listed: usize,
    /// The largest page call, in tokens (prompt at three characters a token, plus the
    /// answer budget).
    largest: u64,
}

/// The hub's page report among the stale pages written now, with its largest call.
fn write_hub(lab: &Lab) -> HubCost {
    let before = lab.model.server().chat_requests().len();
    let mut cost = HubCost::default();
    for page in lab.store_for_tests().stale_pages().expect("stale pages") {
        let report = lab.write_page(page.id);
        assert!(report.ok(), "{} not written: {report:?}", page.title);
        if page.title.eq_ignore_ascii_case("espresso") {
            cost.calls = u64::from(report.usage.calls);
            cost.tokens_in = report.usage.tokens_in;
            cost.tokens_out = report.usage.tokens_out;
            cost.listed = report.listed;
        }
    }
    for call in &lab.model.server().chat_requests()[before..] {
        let sent: usize = call.body["messages"]
            .as_array()
            .map(|m| {
                m.iter()
                    .filter_map(|m| m["content"].as_str())
                    .map(str::len)
                    .sum()
            })
            .unwrap_or(0);
        let budget = call.body["options"]["num_predict"].as_u64().unwrap_or(0);
        cost.largest = cost.largest.max(estimate_tokens(sent) + budget);
    }
    cost
}

/// Issue 22, "Pages that many sources feed": a concept named by 30, 120 and 480 notes,
/// compiled at WikiMind's default context of 8,192 tokens; what writing its page costs
/// (calls, tokens), then what one more note costs, as ratios to the hub of 30.
pub(crate) fn hubs() {
    println!("\n## A hub: N notes naming one concept, default context ({SERVER_CONTEXT} tokens)\n");
    println!(
        "{:>5} | {:>5} {:>10} {:>10} {:>6} {:>8} | {:>9} {:>10} {:>10}",
        "N", "calls", "tokens in", "tokens out", "listed", "largest", "+1 calls", "+1 in", "+1 out"
    );
    let mut rows: Vec<(usize, HubCost, HubCost)> = Vec::new();
    for n in HUB_SIZES {
        let lab = Lab::new(SERVER_CONTEXT);
        for i in 1..=n {
            let id = lab.add(&hub_note(i));
            lab.compile(id);
        }
        let first = write_hub(&lab);
        let more = lab.add(&hub_note(n + 1));
        lab.compile(more);
        let one_more = write_hub(&lab);
        let page = lab
            .store_for_tests()
            .find_page("espresso")
            .expect("find")
            .and_then(|id| lab.store_for_tests().page(id).expect("read"))
            .expect("the hub");
        assert!(
            page.flagged.is_none() && page.stale_reason.is_none(),
            "{page:?}"
        );
        assert!(first.largest <= SERVER_CONTEXT && one_more.largest <= SERVER_CONTEXT);
        println!(
            "{n:>5} | {:>5} {:>10} {:>10} {:>6} {:>8} | {:>9} {:>10} {:>10}",
            first.calls,
            first.tokens_in,
            first.tokens_out,
            first.listed,
            first.largest,
            one_more.calls,
            one_more.tokens_in,
            one_more.tokens_out
        );
        rows.push((n, first, one_more));
    }
    let (_, base, base_more) = rows[0];
    let ratio = |a: u64, b: u64| a as f64 / b.max(1) as f64;
    println!();
    for (n, first, more) in &rows[1..] {
        println!(
            "N={n} against N={}: first write {:.2}x calls, {:.2}x tokens in, {:.2}x tokens \
             out; one more note {:.2}x calls, {:.2}x tokens in",
            HUB_SIZES[0],
            ratio(first.calls, base.calls),
            ratio(first.tokens_in, base.tokens_in),
            ratio(first.tokens_out, base.tokens_out),
            ratio(more.calls, base_more.calls),
            ratio(more.tokens_in, base_more.tokens_in),
        );
    }
}
