//! Log formats: presets, Apache `LogFormat` and nginx `log_format` strings, JSON lines.
