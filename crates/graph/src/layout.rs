//! A ForceAtlas2-style force layout (Jacomy et al., 2014), written here: linear attraction
//! along edges, repulsion `k_r · (deg₁+1)(deg₂+1) / d` computed by Barnes–Hut, gravity
//! towards the origin, and the adaptive speed of the paper (each node slows down when its
//! force swings, the whole layout speeds up while the forces keep one direction).
//!
//! **Whole layouts** start every node at a seeded random spot. **Incremental layouts**
//! ([`LayoutInput::previous`] given for some nodes) keep every placed node where it was,
//! start each new node at the centre of its placed neighbours (a seeded nudge apart), and
//! run [`Settings::incremental_iterations`] over the new nodes (which move freely) and the
//! placed nodes whose links changed ([`LayoutInput::changed`], which move at
//! [`Settings::changed_mobility`]); every other node stays exactly where it was. Only the
//! moving nodes are computed, against a tree of the still ones built once, so an update of
//! a few pages costs little even at 100,000 nodes.

use crate::quadtree::QuadTree;
use crate::rng::Rng;
use crate::{neighbours, Point};

/// How the layout runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The seed of the starting positions and nudges.
    pub seed: u64,
    /// Iterations of a whole layout; `None`: [`Settings::whole_iterations_for`].
    pub iterations: Option<usize>,
    /// Iterations of an incremental update.
    pub incremental_iterations: usize,
    /// How freely a placed node whose links changed moves in an update (0: not at all;
    /// 1: as a new node).
    pub changed_mobility: f64,
    /// Repulsion strength (`k_r`).
    pub scaling: f64,
    /// Pull towards the origin (`k_g`).
    pub gravity: f64,
    /// Barnes–Hut accuracy: a cell counts as one body when its side over its distance is
    /// below this.
    pub theta: f64,
    /// How much swinging is tolerated before the layout slows down.
    pub tolerance: f64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            seed: 0x5EED_6A7A,
            iterations: None,
            incremental_iterations: 60,
            changed_mobility: 0.25,
            scaling: 2.0,
            gravity: 1.0,
            theta: 1.2,
            tolerance: 1.0,
        }
    }
}

impl Settings {
    /// The iterations of a whole layout of `nodes` nodes: more for small graphs (cheap, and
    /// they settle visibly), fewer for large ones (each iteration costs O(n log n)).
    pub fn whole_iterations_for(&self, nodes: usize) -> usize {
        self.iterations.unwrap_or(match nodes {
            0..=2_000 => 400,
            2_001..=20_000 => 200,
            _ => 100,
        })
    }
}

/// What to lay out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LayoutInput {
    /// How many nodes (indices `0..nodes`).
    pub nodes: usize,
    /// Edges between node indices (direction ignored; repeats and self loops left out).
    pub edges: Vec<(u32, u32)>,
    /// Where each node was, `None` for a new one; empty: no node was placed (a whole
    /// layout). A placed position that is not finite counts as new.
    pub previous: Vec<Option<Point>>,
    /// Which placed nodes had their links changed since (moved a little in an update);
    /// empty: none.
    pub changed: Vec<bool>,
    /// Each node's mass, how many nodes it is linked with plus one; empty: counted from
    /// `edges`. An update that knows the counts may then give only the edges of the nodes
    /// that move (the others' edges pull nothing that moves).
    pub masses: Vec<f64>,
}

/// What a layout did.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Where each node is, by index.
    pub positions: Vec<Point>,
    /// Whether it was an incremental update (some nodes were placed).
    pub incremental: bool,
    /// The nodes that moved (new and changed ones; all of them in a whole layout).
    pub moved: usize,
    /// Iterations run.
    pub iterations: usize,
}

/// Lays `input` out. `keep_going` is asked before each iteration with how many ran (and
/// how many will): `false` stops the layout, which then returns `None`.
pub fn lay_out(
    input: &LayoutInput,
    settings: &Settings,
    keep_going: &mut dyn FnMut(usize, usize) -> bool,
) -> Option<Layout> {
    lay_out_drafting(input, settings, keep_going, &mut |_| {})
}

/// [`lay_out`], showing `draft` every node's position after each iteration: a draft of
/// the layout while it settles (the app stores some during a first layout of a large
/// graph, so the window draws it before it is done). Drafts change nothing of the result.
pub fn lay_out_drafting(
    input: &LayoutInput,
    settings: &Settings,
    keep_going: &mut dyn FnMut(usize, usize) -> bool,
    draft: &mut dyn FnMut(&[Point]),
) -> Option<Layout> {
    let n = input.nodes;
    let adjacency = neighbours(n, &input.edges);
    let masses: Vec<f64> = if input.masses.len() == n {
        input.masses.clone()
    } else {
        adjacency.iter().map(|a| a.len() as f64 + 1.0).collect()
    };
    let placed = |i: usize| {
        input
            .previous
            .get(i)
            .copied()
            .flatten()
            .filter(|p| p.x.is_finite() && p.y.is_finite())
    };
    let incremental = (0..n).any(|i| placed(i).is_some());
    let mut rng = Rng::new(settings.seed);
    let mut positions = vec![Point::default(); n];
    let mut mobility = vec![1.0f64; n];
    let iterations;
    if incremental {
        iterations = settings.incremental_iterations;
        for i in 0..n {
            if let Some(p) = placed(i) {
                positions[i] = p;
                let changed = input.changed.get(i).copied().unwrap_or(false);
                mobility[i] = if changed {
                    settings.changed_mobility
                } else {
                    0.0
                };
            }
        }
        place_new_nodes(&adjacency, &mut positions, &mut mobility, &placed, &mut rng);
    } else {
        iterations = settings.whole_iterations_for(n);
        let radius = 10.0 * (n as f64).sqrt().max(1.0);
        for p in &mut positions {
            *p = Point::new(
                (rng.unit() * 2.0 - 1.0) * radius,
                (rng.unit() * 2.0 - 1.0) * radius,
            );
        }
    }
    let moving: Vec<u32> = (0..n as u32)
        .filter(|&i| mobility[i as usize] > 0.0)
        .collect();
    let still: Vec<u32> = (0..n as u32)
        .filter(|&i| mobility[i as usize] == 0.0)
        .collect();
    // The still nodes never move: their tree is built once.
    let still_tree = QuadTree::build(&still, &positions, &masses);
    let mut previous_force = vec![Point::default(); n];
    let mut forces = vec![Point::default(); n];
    let mut speed = 1.0f64;
    for iteration in 0..iterations {
        if !keep_going(iteration, iterations) {
            return None;
        }
        let moving_tree = QuadTree::build(&moving, &positions, &masses);
        for &i in &moving {
            let i_us = i as usize;
            let p = positions[i_us];
            let m = masses[i_us];
            let mut f = moving_tree.repulsion(i, p, m, settings.scaling, settings.theta);
            let g = still_tree.repulsion(i, p, m, settings.scaling, settings.theta);
            f.x += g.x;
            f.y += g.y;
            // Linear attraction along each edge.
            for &j in &adjacency[i_us] {
                let q = positions[j as usize];
                f.x -= p.x - q.x;
                f.y -= p.y - q.y;
            }
            // Gravity: a pull towards the origin proportional to the mass.
            let d = (p.x * p.x + p.y * p.y).sqrt();
            if d > 0.0 {
                f.x -= settings.gravity * m * p.x / d;
                f.y -= settings.gravity * m * p.y / d;
            }
            forces[i_us] = f;
        }
        // The adaptive speed: swinging (the force changed direction) against traction.
        let (mut swing, mut traction) = (0.0f64, 0.0f64);
        for &i in &moving {
            let i_us = i as usize;
            let (f, g) = (forces[i_us], previous_force[i_us]);
            let m = masses[i_us];
            swing += m * ((f.x - g.x).powi(2) + (f.y - g.y).powi(2)).sqrt();
            traction += m * ((f.x + g.x).powi(2) + (f.y + g.y).powi(2)).sqrt() / 2.0;
        }
        if swing > 0.0 && traction > 0.0 {
            let target = settings.tolerance * traction / swing;
            speed = if iteration == 0 {
                target.min(1.0)
            } else {
                target.min(speed * 1.5)
            };
        }
        for &i in &moving {
            let i_us = i as usize;
            let (f, g) = (forces[i_us], previous_force[i_us]);
            let m = masses[i_us];
            let node_swing = m * ((f.x - g.x).powi(2) + (f.y - g.y).powi(2)).sqrt();
            let mut factor = speed / (1.0 + (speed * node_swing).sqrt()) / m;
            // No step longer than a bound, so a huge force early on cannot fling a node off.
            let length = (f.x * f.x + f.y * f.y).sqrt() * factor;
            let max_step = 10.0 * m.sqrt();
            if length > max_step {
                factor *= max_step / length;
            }
            let factor = factor * mobility[i_us];
            if factor.is_finite() {
                positions[i_us].x += f.x * factor;
                positions[i_us].y += f.y * factor;
            }
            previous_force[i_us] = f;
        }
        draft(&positions);
    }
    Some(Layout {
        positions,
        incremental,
        moved: moving.len(),
        iterations,
    })
}

/// Starts each new node beside its placed neighbours (their centre, nudged), or, with none
/// placed, near the placed node nearest in index order's centre of the whole layout.
/// New nodes are placed in index order, so a chain of new nodes follows the first one.
fn place_new_nodes(
    adjacency: &[Vec<u32>],
    positions: &mut [Point],
    mobility: &mut [f64],
    placed: &dyn Fn(usize) -> Option<Point>,
    rng: &mut Rng,
) {
    let n = adjacency.len();
    let mut is_placed: Vec<bool> = (0..n).map(|i| placed(i).is_some()).collect();
    // The spread of the placed layout sets the size of the nudge and of the free spot.
    let placed_points: Vec<Point> = (0..n).filter_map(placed).collect();
    let count = placed_points.len().max(1) as f64;
    let centre = Point::new(
        placed_points.iter().map(|p| p.x).sum::<f64>() / count,
        placed_points.iter().map(|p| p.y).sum::<f64>() / count,
    );
    let spread = (placed_points
        .iter()
        .map(|p| p.distance(centre).powi(2))
        .sum::<f64>()
        / count)
        .sqrt()
        .max(1.0);
    let nudge = (spread / count.sqrt()).clamp(0.5, 20.0);
    for i in 0..n {
        if is_placed[i] {
            continue;
        }
        let anchors: Vec<Point> = adjacency[i]
            .iter()
            .filter(|&&j| is_placed[j as usize])
            .map(|&j| positions[j as usize])
            .collect();
        let angle = rng.unit() * std::f64::consts::TAU;
        let base = if anchors.is_empty() {
            // Alone: at the rim of the layout, where it disturbs nothing.
            let r = spread * (1.0 + rng.unit() * 0.2);
            Point::new(centre.x + r * angle.cos(), centre.y + r * angle.sin())
        } else {
            let k = anchors.len() as f64;
            Point::new(
                anchors.iter().map(|p| p.x).sum::<f64>() / k,
                anchors.iter().map(|p| p.y).sum::<f64>() / k,
            )
        };
        let r = nudge * (0.5 + rng.unit());
        positions[i] = Point::new(base.x + r * angle.cos(), base.y + r * angle.sin());
        mobility[i] = 1.0;
        is_placed[i] = true;
    }
}

#[cfg(test)]
mod tests;
