"""The machinery every op records into: grad modes, graph nodes and the backward engine."""
