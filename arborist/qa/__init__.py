"""Questions and answers: chat clients and the citations their answers carry.

The chat protocol lives in :mod:`arborist.qa.client`, the clients in
:mod:`arborist.qa.extractive`, :mod:`arborist.qa.stub` and :mod:`arborist.qa.openai`,
the choice among them in :mod:`arborist.qa.models` and the citation format in
:mod:`arborist.proofs.citations`. The package re-exports nothing: each name is imported from the
module that defines it, so importing one module loads only what it needs.
"""

__all__: list[str] = []
