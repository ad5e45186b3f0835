//! How the web view paints on a machine without a GPU. WebKitGTK paints pages with Skia on
//! the GPU by default; without one, Mesa runs that GL on the processor (llvmpipe), which
//! costs more than Skia painting on the processor itself. Measured here (2 cores, no GPU,
//! release build): an empty wiki's window on screen 0.91 → 0.76 s (median of eight
//! launches each), and at 100,000 pages rows scrolled into view 152–217 → 99–136 ms,
//! search as you type p95 116–119 → 79–91 ms, the web process 401–408 → 324–330 MB.

use std::ffi::OsString;
use std::path::Path;

/// The variable WebKitGTK reads to paint with Skia on the processor.
pub const CPU_RENDERING: &str = "WEBKIT_SKIA_ENABLE_CPU_RENDERING";

/// Where Linux lists the GPUs a program can draw with (`renderD128`, …).
const DRI: &str = "/dev/dri";

/// Asks WebKitGTK to paint on the processor when the machine has no GPU to draw with,
/// unless the variable is already set (a person's own choice is kept). Call it first thing
/// in `main`, before any thread starts: it sets a variable of this process, which the web
/// view's processes inherit.
pub fn paint_on_the_processor_without_a_gpu() {
    if cfg!(target_os = "linux")
        && wants_cpu_rendering(std::env::var_os(CPU_RENDERING), Path::new(DRI))
    {
        std::env::set_var(CPU_RENDERING, "1");
    }
}

/// Whether to set [`CPU_RENDERING`]: it is not set already (`set`), and `dri` holds no
/// render node, the device a program draws through on a GPU (a display-only card has
/// none).
fn wants_cpu_rendering(set: Option<OsString>, dri: &Path) -> bool {
    set.is_none() && !has_render_node(dri)
}

fn has_render_node(dri: &Path) -> bool {
    std::fs::read_dir(dri).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_processor_paints_only_where_no_gpu_can_draw_and_nobody_chose() {
        let dir = tempfile::tempdir().unwrap();
        let dri = dir.path().join("dri");
        // No device folder at all (a virtual machine, a container): no GPU.
        assert!(wants_cpu_rendering(None, &dri));
        // A display-only card: still no GPU to draw with.
        std::fs::create_dir(&dri).unwrap();
        std::fs::write(dri.join("card0"), "").unwrap();
        assert!(wants_cpu_rendering(None, &dri));
        // A render node: the GPU paints, as WebKitGTK does by default.
        std::fs::write(dri.join("renderD128"), "").unwrap();
        assert!(!wants_cpu_rendering(None, &dri));
        // A person's own setting is kept, either way.
        let empty = dir.path().join("none");
        assert!(!wants_cpu_rendering(Some("0".into()), &empty));
        assert!(!wants_cpu_rendering(Some("1".into()), &dri));
    }
}
