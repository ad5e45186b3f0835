//! Render: markdown to sanitised HTML with resolved `[[wiki links]]`.
