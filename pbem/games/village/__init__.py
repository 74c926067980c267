"""The werewolf-family kit shared by Lupus in Tabula, Loup-Garou and Chasse aux sorcières:
seats and pending actions (state), votes and tallies (voting), the deal and its leftover cards
(cards), and the events the games share (events)."""
