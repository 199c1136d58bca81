"""The methods disassociation is compared with (Terrovitis2012 section 7).

Apriori k^m-anonymity by generalization over a hierarchy, and DiffPart (differential privacy).
"""
