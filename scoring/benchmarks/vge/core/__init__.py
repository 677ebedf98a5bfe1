"""Pure VGE code: device schema, state-machine engine, task generation, metrics, view rendering. Imports no Django."""
