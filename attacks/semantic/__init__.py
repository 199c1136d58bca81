"""The semantic attack of AlShuhail2021 ch. 4: scorers, selectors, the attack, its metrics."""
