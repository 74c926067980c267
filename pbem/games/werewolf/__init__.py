"""Werewolf-family games: Lupus in Tabula, Loup-Garou, Chasse aux sorcières."""
