//! The Barnes–Hut quadtree: bodies (a position and a mass) grouped into square cells, so
//! the repulsion of a far group is computed once from its centre of mass instead of once
//! per body (O(n log n) an iteration instead of O(n²)).

use crate::Point;

/// Past this depth, bodies that still share a cell (equal or nearly equal positions) stay
/// together in one leaf instead of splitting forever.
const MAX_DEPTH: u32 = 40;
const NONE: u32 = u32::MAX;

#[derive(Debug, Clone)]
struct Cell {
    /// Centre and half the side of the cell's square.
    centre: Point,
    half: f64,
    /// Total mass and mass-weighted sum of positions of the bodies inside.
    mass: f64,
    sum_x: f64,
    sum_y: f64,
    /// First child (the four are consecutive), or `NONE` for a leaf.
    children: u32,
    /// A leaf's body (`NONE`: an empty leaf); a leaf at `MAX_DEPTH` may hold more mass
    /// than this body's.
    body: u32,
}

impl Cell {
    fn leaf(centre: Point, half: f64) -> Cell {
        Cell {
            centre,
            half,
            mass: 0.0,
            sum_x: 0.0,
            sum_y: 0.0,
            children: NONE,
            body: NONE,
        }
    }
}

/// A quadtree over a set of bodies.
#[derive(Debug, Clone)]
pub(crate) struct QuadTree {
    cells: Vec<Cell>,
}

impl QuadTree {
    /// The tree of the bodies `ids` at `positions` with `masses` (indexed by id).
    pub(crate) fn build(ids: &[u32], positions: &[Point], masses: &[f64]) -> QuadTree {
        let mut min = Point::new(f64::INFINITY, f64::INFINITY);
        let mut max = Point::new(f64::NEG_INFINITY, f64::NEG_INFINITY);
        for &id in ids {
            let p = positions[id as usize];
            min.x = min.x.min(p.x);
            min.y = min.y.min(p.y);
            max.x = max.x.max(p.x);
            max.y = max.y.max(p.y);
        }
        let mut tree = QuadTree {
            cells: Vec::with_capacity(ids.len() * 2 + 1),
        };
        if ids.is_empty() {
            return tree;
        }
        let half = ((max.x - min.x).max(max.y - min.y) / 2.0).max(1e-6) * 1.0001;
        let centre = Point::new((min.x + max.x) / 2.0, (min.y + max.y) / 2.0);
        tree.cells.push(Cell::leaf(centre, half));
        for &id in ids {
            tree.insert(id, positions, masses[id as usize]);
        }
        tree
    }

    fn quadrant(cell: &Cell, p: Point) -> u32 {
        u32::from(p.x >= cell.centre.x) + 2 * u32::from(p.y >= cell.centre.y)
    }

    fn split(&mut self, at: usize) {
        let first = self.cells.len() as u32;
        let (centre, half) = (self.cells[at].centre, self.cells[at].half / 2.0);
        for q in 0..4 {
            let dx = if q & 1 == 1 { half } else { -half };
            let dy = if q & 2 == 2 { half } else { -half };
            self.cells
                .push(Cell::leaf(Point::new(centre.x + dx, centre.y + dy), half));
        }
        self.cells[at].children = first;
    }

    fn insert(&mut self, id: u32, positions: &[Point], mass: f64) {
        let p = positions[id as usize];
        let mut at = 0usize;
        let mut depth = 0;
        loop {
            let cell = &mut self.cells[at];
            if cell.children == NONE {
                if cell.body == NONE && cell.mass == 0.0 {
                    cell.body = id;
                    cell.mass = mass;
                    cell.sum_x = p.x * mass;
                    cell.sum_y = p.y * mass;
                    return;
                }
                if depth >= MAX_DEPTH {
                    cell.mass += mass;
                    cell.sum_x += p.x * mass;
                    cell.sum_y += p.y * mass;
                    return;
                }
                // A leaf holding one body becomes a branch: its body moves down a level.
                let old = cell.body;
                let (old_mass, old_x, old_y) = (cell.mass, cell.sum_x, cell.sum_y);
                cell.body = NONE;
                self.split(at);
                let cell = &self.cells[at];
                let child =
                    (cell.children + Self::quadrant(cell, positions[old as usize])) as usize;
                let c = &mut self.cells[child];
                c.body = old;
                c.mass = old_mass;
                c.sum_x = old_x;
                c.sum_y = old_y;
            }
            let cell = &mut self.cells[at];
            cell.mass += mass;
            cell.sum_x += p.x * mass;
            cell.sum_y += p.y * mass;
            let cell = &self.cells[at];
            at = (cell.children + Self::quadrant(cell, p)) as usize;
            depth += 1;
        }
    }

    /// The repulsion on body `id` (at `p`, of `mass`) from every body of the tree but
    /// itself: `k · mass · M / d` away from each body or far cell (of mass `M` at distance
    /// `d`), a cell counting as one body when its side over its distance is below `theta`.
    pub(crate) fn repulsion(&self, id: u32, p: Point, mass: f64, k: f64, theta: f64) -> Point {
        let mut force = Point::default();
        if self.cells.is_empty() {
            return force;
        }
        let theta2 = theta * theta;
        let mut stack: Vec<u32> = Vec::with_capacity(64);
        stack.push(0);
        while let Some(at) = stack.pop() {
            let cell = &self.cells[at as usize];
            if cell.mass == 0.0 {
                continue;
            }
            let mut cell_mass = cell.mass;
            let (mut sx, mut sy) = (cell.sum_x, cell.sum_y);
            if cell.children == NONE && cell.body == id {
                // This leaf holds the body itself (and, at full depth, bodies on top of it).
                cell_mass -= mass;
                sx -= p.x * mass;
                sy -= p.y * mass;
                if cell_mass <= 1e-12 {
                    continue;
                }
            }
            let (cx, cy) = (sx / cell_mass, sy / cell_mass);
            let (dx, dy) = (p.x - cx, p.y - cy);
            let d2 = dx * dx + dy * dy;
            let side = cell.half * 2.0;
            if cell.children == NONE || side * side < theta2 * d2 {
                if d2 > 1e-18 {
                    let f = k * mass * cell_mass / d2;
                    force.x += dx * f;
                    force.y += dy * f;
                } else {
                    // Two bodies on one spot: pushed apart along a direction of their own.
                    let angle = f64::from(id.wrapping_mul(2_654_435_761) % 6283) / 1000.0;
                    force.x += angle.cos() * k * mass * cell_mass;
                    force.y += angle.sin() * k * mass * cell_mass;
                }
                continue;
            }
            for q in 0..4 {
                stack.push(cell.children + q);
            }
        }
        force
    }
}
