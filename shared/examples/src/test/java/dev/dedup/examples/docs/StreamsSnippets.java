package dev.dedup.examples.docs;

import dev.dedup.client.Claims;
import dev.dedup.kafka.streams.Dedup;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;

/** The Java blocks of docs/kafka-streams.md, compiled (DocsCodeBlocksTest finds them here). */
final class StreamsSnippets {

    static StreamsBuilder topology() {
        StreamsBuilder builder = new StreamsBuilder();
        Dedup<String, byte[]> dedup = Dedup.builder(
                        Claims.fromEnvironment("clicks"), Serdes.String(), Serdes.ByteArray())
                .idFromHeader("message-id") // never the record key
                .build();
        builder.stream("clicks", Consumed.with(Serdes.String(), Serdes.ByteArray()))
                .process(dedup) // right after the source: the owner is the record's topic, partition and offset
                .to("clicks-unique", Produced.with(Serdes.String(), Serdes.ByteArray()));
        return builder;
    }

    private StreamsSnippets() {}
}
