// A LoggingPlayer that fails on purpose at its third discard of a game, as the environment
// variable GINBOX_TEST_FAULT says: "throw" (an exception), "discard" (a card it does not
// hold), "melds" (knocks with melds that are not melds). For ginbox's tests of forfeits.
package ginboxtest;

import ginrummy.Card;

import java.util.ArrayList;
import java.util.List;

public class FaultyPlayer extends LoggingPlayer {
    private int discards;
    private final List<Card> held = new ArrayList<>();

    @Override
    public void startGame(int playerNum, int startingPlayerNum, Card[] cards) {
        super.startGame(playerNum, startingPlayerNum, cards);
        held.clear();
        held.addAll(List.of(cards));
    }

    @Override
    public void reportDraw(int playerNum, Card drawnCard) {
        super.reportDraw(playerNum, drawnCard);
        if (drawnCard != null && !held.contains(drawnCard))
            held.add(drawnCard);
    }

    @Override
    public Card getDiscard() {
        Card chosen = super.getDiscard();
        if (++discards % 3 != 0)
            return chosen;
        String fault = System.getenv("GINBOX_TEST_FAULT");
        if ("throw".equals(fault))
            throw new IllegalStateException("a fault on purpose");
        if ("discard".equals(fault))
            for (Card c : Card.allCards)
                if (!held.contains(c))
                    return c;
        return chosen;
    }

    @Override
    public ArrayList<ArrayList<Card>> getFinalMelds() {
        if ("melds".equals(System.getenv("GINBOX_TEST_FAULT")) && discards % 3 == 0) {
            ArrayList<ArrayList<Card>> bad = new ArrayList<>();
            bad.add(new ArrayList<>(List.of(Card.getCard(0, 0), Card.getCard(5, 1))));
            return bad;
        }
        return super.getFinalMelds();
    }
}
