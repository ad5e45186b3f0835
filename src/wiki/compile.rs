//! Compiling: the prompts (built-ins with the wiki's overrides), the compilers every
//! shell and the queue get, what a compile request selects, and the digests it writes.

use std::sync::Arc;

use serde::Serialize;

use crate::compile::{providers_from_settings, Compiler, PromptSet};
use crate::config::Settings;
use crate::store::{ArticleDetail, SourceId, SourceStatus};

use super::{Result, Wiki};

/// What a compile request selects (see [`Wiki::compile_selection`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CompileSelection {
    /// The sources to compile, in order.
    pub sources: Vec<SourceId>,
    /// Sources named that are compiled already (left alone without `force`).
    pub already_compiled: Vec<SourceId>,
    /// Keys that name no source.
    pub unknown: Vec<String>,
}

impl Wiki {
    /// The prompt templates: built-ins with the overrides in `<data dir>/prompts/`.
    pub fn prompts(&self) -> PromptSet {
        match &self.data_dir {
            Some(dir) => PromptSet::load(&dir.join("prompts")).0,
            None => PromptSet::builtin(),
        }
    }

    /// Override files in `<data dir>/prompts/` that could not be used, and why (the built-in
    /// template is used for each).
    pub fn prompt_problems(&self) -> Vec<String> {
        match &self.data_dir {
            Some(dir) => PromptSet::load(&dir.join("prompts")).1,
            None => Vec::new(),
        }
    }

    /// A compiler with the configured providers and prompts, sharing this wiki's name
    /// indexes with every other compiler it makes.
    pub fn compiler(&self, settings: &Settings) -> Result<Arc<Compiler>> {
        let providers = providers_from_settings(settings)?;
        Ok(Arc::new(
            self.compiler_with(providers, settings.compile.clone()),
        ))
    }

    /// A compiler over `providers` with `settings` (the eval's models and judges), with
    /// this wiki's prompts (its overrides included) and name indexes: its
    /// [`Compiler::caller`] and [`Compiler::prompts`] are what every task runs with.
    pub fn compiler_with(
        &self,
        providers: Vec<crate::compile::ProviderSlot>,
        settings: crate::config::CompileSettings,
    ) -> Compiler {
        Compiler::new(Arc::clone(&self.store), providers, settings)
            .with_name_cache(Arc::clone(&self.names))
            .with_note_cache(Arc::clone(&self.notes))
            .with_prompts(self.prompts())
    }

    /// Which sources a compile asked for by `keys` compiles: with no keys, every source
    /// that is pending, failed, stale or was interrupted (and with `force` the compiled
    /// ones too); with keys, the sources they name, minus compiled ones unless `force`.
    pub fn compile_selection(&self, keys: &[String], force: bool) -> Result<CompileSelection> {
        let mut selection = CompileSelection::default();
        if keys.is_empty() {
            selection.sources = self
                .store
                .sources_to_compile(force)?
                .into_iter()
                .map(|s| s.id)
                .collect();
            return Ok(selection);
        }
        for key in keys {
            let Some(id) = self.find_source(key)? else {
                selection.unknown.push(key.clone());
                continue;
            };
            let compiled = self.store.source(id)?.map(|s| s.status) == Some(SourceStatus::Compiled);
            if compiled && !force {
                selection.already_compiled.push(id);
            } else if !selection.sources.contains(&id) {
                selection.sources.push(id);
            }
        }
        Ok(selection)
    }

    /// An article by id or exact title.
    pub fn article(&self, key: &str) -> Result<Option<ArticleDetail>> {
        match self.store.find_article(key)? {
            Some(id) => self.digest(id),
            None => Ok(None),
        }
    }

    /// The digest with id `id` (an article id, as a compile report gives it), or `None`.
    pub fn digest(&self, id: crate::store::ArticleId) -> Result<Option<ArticleDetail>> {
        Ok(self.store.article(id)?)
    }
}
