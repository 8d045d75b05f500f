"""Questions and answers: chat clients and the citations their answers carry.

The chat protocol lives in :mod:`arborist._qa.client`, the clients in
:mod:`arborist._qa.extractive`, :mod:`arborist._qa.stub` and :mod:`arborist._qa.openai`,
the choice among them in :mod:`arborist._qa.models` and the citation format in
:mod:`arborist._proofs.citations`. The package re-exports nothing: each name is imported from the
module that defines it, so importing one module loads only what it needs.
"""

__all__: list[str] = []
