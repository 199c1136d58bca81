"""Disassociation (Terrovitis2012): HORPART, VERPART, REFINE, Lemma 2, safe disassociation (Awad2019), split runs.

``pipeline.disassociate`` runs the steps; ``parts`` and ``distributed`` run them on parts of the
data (in processes or on Dask); ``publish`` assembles the release and truth.
"""
