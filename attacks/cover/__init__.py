"""The cover problem (Barakat2016, Awad2019): attacker knowledge, cover relations, breach detection and PEM."""
