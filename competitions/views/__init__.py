"""The competitions' pages: the public results, standings and cups, the coach's picks and infos
équipes, and the referee's desk."""
