//! Writing a page from the digests that feed it: one strict-JSON call with the
//! `CompilationResult` contract, grounded against every contributing source.

use crate::llm::CancellationToken;
use crate::store::PageId;

use super::driver::{CompileError, Compiler};
use super::live::ProgressFn;
use super::page_report::PageReport;

impl Compiler {
    /// Writes a stale page from its digests (a page job the queue has started).
    pub async fn write_page(
        &self,
        page_id: PageId,
        _events: &ProgressFn,
        _cancel: &CancellationToken,
    ) -> Result<PageReport, CompileError> {
        Err(CompileError::Worker(format!(
            "writing page {page_id} is not built yet"
        )))
    }
}
