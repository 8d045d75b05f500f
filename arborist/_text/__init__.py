"""Text rules, pure: words and identifiers (:mod:`.text_words`), how a question is read
(:mod:`.analysis`), where a text defines a name (:mod:`.definitions`), and text made inert
before a terminal shows it (:mod:`.terminal`)."""

__all__: list[str] = []
