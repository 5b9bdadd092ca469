"""One module per subcommand: a frozen config dataclass in, a result dataclass out (numerics in ``core``)."""
