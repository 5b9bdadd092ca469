"""Pure numerics of the gauge model: no files, no terminal, no CLI."""
