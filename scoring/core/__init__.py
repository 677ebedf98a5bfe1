"""Pure scoring code: parsers, metrics, judges and statistics. Imports no Django; plain data in and out."""
