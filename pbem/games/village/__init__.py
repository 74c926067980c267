"""The werewolf-family kit shared by Lupus in Tabula, Loup-Garou and Chasse aux sorcières: the
state every game extends, its seats and pending actions (state), the reading every game's rules
share (rules), votes and tallies (voting), the deal and its leftover cards (cards), and the
events the games share (events)."""
