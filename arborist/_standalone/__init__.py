"""Whether a question stands alone or follows up the turn above it (pure: no I/O):
:mod:`arborist._standalone.rule` is the rule, the other modules what it reads."""

__all__: list[str] = []
