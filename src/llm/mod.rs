//! Model providers: Ollama's native API and OpenAI-compatible servers, streamed.
