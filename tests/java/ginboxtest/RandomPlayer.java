// A GinRummyPlayer that plays at random from a java.util.Random field: ginbox seeds such
// fields from the game's random stream, so a game with it is reproducible from its seed.
package ginboxtest;

import ginrummy.Card;
import ginrummy.GinRummyPlayer;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

public class RandomPlayer implements GinRummyPlayer {
    private final Random random = new Random();
    private final List<Card> hand = new ArrayList<>();
    private Card takenFaceUp;
    private Card offered;
    private int me;
    private boolean defending; // the other player knocked: its melds are asked as the defender's

    @Override
    public void startGame(int playerNum, int startingPlayerNum, Card[] cards) {
        me = playerNum;
        defending = false;
        hand.clear();
        hand.addAll(List.of(cards));
    }

    @Override
    public boolean willDrawFaceUpCard(Card card) {
        offered = random.nextBoolean() ? card : null;
        return offered != null;
    }

    @Override
    public void reportDraw(int playerNum, Card drawnCard) {
        if (playerNum == me) {
            hand.add(drawnCard);
            takenFaceUp = drawnCard == offered ? drawnCard : null;
        }
    }

    @Override
    public Card getDiscard() {
        List<Card> allowed = new ArrayList<>(hand);
        allowed.remove(takenFaceUp);
        return allowed.get(random.nextInt(allowed.size()));
    }

    @Override
    public void reportDiscard(int playerNum, Card discardedCard) {
        if (playerNum == me)
            hand.remove(discardedCard);
    }

    @Override
    public ArrayList<ArrayList<Card>> getFinalMelds() {
        List<List<Card>> melds = LoggingPlayer.bestMelds(hand);
        if (!defending && LoggingPlayer.deadwood(hand) > 10)
            return null;
        ArrayList<ArrayList<Card>> out = new ArrayList<>();
        for (List<Card> m : melds)
            out.add(new ArrayList<>(m));
        return out;
    }

    @Override
    public void reportFinalMelds(int playerNum, ArrayList<ArrayList<Card>> melds) {
        defending |= playerNum != me;
    }

    @Override
    public void reportScores(int[] scores) {
    }

    @Override
    public void reportLayoff(int playerNum, Card layoffCard, ArrayList<Card> opponentMeld) {
    }

    @Override
    public void reportFinalHand(int playerNum, ArrayList<Card> hand) {
    }
}
