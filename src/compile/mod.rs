//! Compile: prompts, the pure compile step, grounding, and the driver that does the IO.
