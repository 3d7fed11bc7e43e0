// A small deterministic GinRummyPlayer for ginbox's tests that writes every call it receives,
// with its arguments and its answer, one line each, to $GINBOX_CALL_LOG/calls-<playerNum>.txt
// (cards sorted, so the lines do not depend on the order a hand is held in). It plays a plain
// greedy game: takes a face-up card that lowers its deadwood, discards to the least deadwood,
// knocks whenever it may. It uses only Card and GinRummyPlayer, so it runs in the EAAI
// framework and at a ginbox table alike.
package ginboxtest;

import ginrummy.Card;
import ginrummy.GinRummyPlayer;

import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

public class LoggingPlayer implements GinRummyPlayer {
    private final List<Card> hand = new ArrayList<>();
    private Card takenFaceUp; // drawn face up this turn: not to be discarded
    private Card offered; // the face-up card it said it would take
    private PrintWriter log;

    private void write(String line) {
        if (log != null) {
            log.println(line);
            log.flush();
        }
    }

    static String text(List<Card> cards) {
        List<Card> sorted = new ArrayList<>(cards);
        sorted.sort(Comparator.comparingInt(Card::getId));
        StringBuilder b = new StringBuilder("[");
        for (Card c : sorted)
            b.append(b.length() > 1 ? " " : "").append(c);
        return b.append("]").toString();
    }

    static String meldsText(List<? extends List<Card>> melds) {
        if (melds == null)
            return "null";
        List<String> parts = new ArrayList<>();
        for (List<Card> m : melds)
            parts.add(text(m));
        parts.sort(null);
        return parts.toString();
    }

    static int value(Card c) {
        return Math.min(c.getRank() + 1, 10);
    }

    /** Every meld within cards (sets of 3 and 4, runs of 3 and more). */
    static List<List<Card>> meldsWithin(List<Card> cards) {
        List<List<Card>> out = new ArrayList<>();
        for (int rank = 0; rank < 13; rank++) {
            List<Card> same = new ArrayList<>();
            for (Card c : cards)
                if (c.getRank() == rank)
                    same.add(c);
            if (same.size() >= 3) {
                if (same.size() == 4)
                    out.add(same);
                for (int skip = 0; skip < same.size() && same.size() == 4; skip++) {
                    List<Card> three = new ArrayList<>(same);
                    three.remove(skip);
                    out.add(three);
                }
                if (same.size() == 3)
                    out.add(same);
            }
        }
        for (int suit = 0; suit < 4; suit++)
            for (int low = 0; low < 13; low++)
                for (int high = low + 2; high < 13; high++) {
                    List<Card> run = new ArrayList<>();
                    for (int r = low; r <= high; r++)
                        run.add(Card.getCard(r, suit));
                    if (cards.containsAll(run))
                        out.add(run);
                }
        return out;
    }

    /** The melds leaving least deadwood (the first such in search order). */
    static List<List<Card>> bestMelds(List<Card> cards) {
        List<List<Card>> all = meldsWithin(cards);
        List<List<Card>> best = new ArrayList<>();
        search(all, 0, new ArrayList<>(), new ArrayList<>(cards), best, new int[] {Integer.MAX_VALUE});
        return best;
    }

    private static void search(List<List<Card>> all, int from, List<List<Card>> chosen, List<Card> left,
                               List<List<Card>> best, int[] bestDeadwood) {
        int deadwood = 0;
        for (Card c : left)
            deadwood += value(c);
        if (deadwood < bestDeadwood[0]) {
            bestDeadwood[0] = deadwood;
            best.clear();
            best.addAll(chosen);
        }
        for (int i = from; i < all.size(); i++) {
            List<Card> meld = all.get(i);
            if (!left.containsAll(meld))
                continue;
            chosen.add(meld);
            left.removeAll(meld);
            search(all, i + 1, chosen, left, best, bestDeadwood);
            left.addAll(meld);
            chosen.remove(chosen.size() - 1);
        }
    }

    static int deadwood(List<Card> cards) {
        List<Card> left = new ArrayList<>(cards);
        for (List<Card> m : bestMelds(cards))
            left.removeAll(m);
        int total = 0;
        for (Card c : left)
            total += value(c);
        return total;
    }

    /** The discard leaving least deadwood, the highest card id on a tie; never {@code not}. */
    private Card bestDiscard(List<Card> cards, Card not) {
        Card best = null;
        int bestDeadwood = Integer.MAX_VALUE;
        for (Card c : cards) {
            if (c == not)
                continue;
            List<Card> rest = new ArrayList<>(cards);
            rest.remove(c);
            int d = deadwood(rest);
            if (d < bestDeadwood || (d == bestDeadwood && c.getId() > best.getId())) {
                best = c;
                bestDeadwood = d;
            }
        }
        return best;
    }

    @Override
    public void startGame(int playerNum, int startingPlayerNum, Card[] cards) {
        String dir = System.getenv("GINBOX_CALL_LOG");
        if (log == null && dir != null) {
            try {
                log = new PrintWriter(new FileWriter(dir + "/calls-" + playerNum + ".txt", true));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
        me = playerNum;
        hand.clear();
        hand.addAll(List.of(cards));
        takenFaceUp = offered = null;
        knocked = false;
        write("startGame " + playerNum + " " + startingPlayerNum + " " + text(hand));
    }

    @Override
    public boolean willDrawFaceUpCard(Card card) {
        List<Card> with = new ArrayList<>(hand);
        with.add(card);
        Card out = bestDiscard(with, card);
        with.remove(out);
        boolean take = deadwood(with) < deadwood(hand);
        offered = take ? card : null;
        write("willDrawFaceUpCard " + card + " -> " + take);
        return take;
    }

    @Override
    public void reportDraw(int playerNum, Card drawnCard) {
        write("reportDraw " + playerNum + " " + drawnCard);
        if (mine(playerNum)) {
            hand.add(drawnCard);
            takenFaceUp = drawnCard == offered ? drawnCard : null;
            offered = null;
        }
    }

    private int me = -1;

    private boolean mine(int playerNum) {
        return playerNum == me;
    }

    @Override
    public Card getDiscard() {
        Card out = bestDiscard(hand, takenFaceUp);
        write("getDiscard -> " + out);
        return out;
    }

    @Override
    public void reportDiscard(int playerNum, Card discardedCard) {
        write("reportDiscard " + playerNum + " " + discardedCard);
        if (mine(playerNum))
            hand.remove(discardedCard);
    }

    @Override
    public ArrayList<ArrayList<Card>> getFinalMelds() {
        List<List<Card>> best = bestMelds(hand);
        ArrayList<ArrayList<Card>> melds = new ArrayList<>();
        for (List<Card> m : best)
            melds.add(new ArrayList<>(m));
        boolean knocking = hand.size() == 10 && !knocked;
        ArrayList<ArrayList<Card>> answer = (knocking && deadwood(hand) > 10) ? null : melds;
        write("getFinalMelds -> " + meldsText(answer));
        return answer;
    }

    private boolean knocked;

    @Override
    public void reportFinalMelds(int playerNum, ArrayList<ArrayList<Card>> melds) {
        knocked = true;
        write("reportFinalMelds " + playerNum + " " + meldsText(melds));
    }

    @Override
    public void reportScores(int[] scores) {
        knocked = false;
        write("reportScores " + scores[0] + " " + scores[1]);
    }

    @Override
    public void reportLayoff(int playerNum, Card layoffCard, ArrayList<Card> opponentMeld) {
        write("reportLayoff " + playerNum + " " + layoffCard + " " + text(opponentMeld));
    }

    @Override
    public void reportFinalHand(int playerNum, ArrayList<Card> hand) {
        write("reportFinalHand " + playerNum + " " + text(hand));
    }
}
