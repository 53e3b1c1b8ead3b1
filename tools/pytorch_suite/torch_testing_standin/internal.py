"""``torch.testing._internal``: a package whose modules our finder serves."""

__path__ = []
