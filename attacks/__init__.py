"""Attacks on disassociated data: the cover problem (Barakat2016, Awad2019) and the semantic attack (AlShuhail2021)."""
