// A minimal stand-in for the EAAI framework's ginrummy.Card, written for ginbox's tests from
// the framework's documented API (the real one is not part of ginbox): 52 shared card objects,
// rank 0 (ace) .. 12 (king), suit 0..3 for C, H, S, D, id = suit * 13 + rank, text "AC".
package ginrummy;

public class Card {
    public static final String[] rankNames = {"A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"};
    public static final String[] suitNames = {"C", "H", "S", "D"};
    public static final int NUM_RANKS = 13;
    public static final int NUM_SUITS = 4;
    public static final int NUM_CARDS = 52;
    public static final Card[] allCards = new Card[NUM_CARDS];

    static {
        for (int id = 0; id < NUM_CARDS; id++)
            allCards[id] = new Card(id % NUM_RANKS, id / NUM_RANKS);
    }

    public final int rank;
    public final int suit;

    public Card(int rank, int suit) {
        this.rank = rank;
        this.suit = suit;
    }

    public static Card getCard(int id) {
        return allCards[id];
    }

    public static Card getCard(int rank, int suit) {
        return allCards[suit * NUM_RANKS + rank];
    }

    public int getRank() {
        return rank;
    }

    public int getSuit() {
        return suit;
    }

    public int getId() {
        return suit * NUM_RANKS + rank;
    }

    @Override
    public String toString() {
        return rankNames[rank] + suitNames[suit];
    }
}
