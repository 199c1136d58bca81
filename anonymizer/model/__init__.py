"""The model every part of the anonymizer is a client of (imports nothing of the engine or of I/O).

- ``release``, ``clusters``, ``truth``, ``arrays``: the one release representation (immutable, array
  backed, with read-only object views) and the owner's truth file;
- ``params``: one frozen, validated parameters type per method (disassociation, Apriori, DiffPart);
- ``conditions``: one definition per paper condition (k^m-anonymity, Lemma 2, Property 1, the
  cover problems of Barakat2016 and Awad2019) that every fast path is tested against;
- ``provenance``: the canonical JSON encoding and the release digest.
"""
