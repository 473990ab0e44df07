package dev.dedup.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.unix_timestamp;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.IntegralType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampType;

/**
 * Where a row's claim is read from, as the builder was told, resolved against one Dataset's schema on the driver:
 * the columns are checked there (a missing one is refused with its name and the Dataset's columns, before any task
 * runs), expressions become helper columns after the caller's, and the executors get a {@link RowReader} of column
 * positions.
 */
final class ClaimColumns {

    /** The helper columns added while claiming; a Dataset must not have its own of these names. */
    private static final String ID_COLUMN = "__dedup_id";

    private static final String OWNER_COLUMN = "__dedup_owner";
    private static final String EVENT_TIME_COLUMN = "__dedup_event_second";

    /** A Dataset ready to claim: the caller's columns, then the helpers; and how a task reads its rows. */
    static final class Resolved {
        final Dataset<Row> rows;
        final int width;
        final RowReader reader;

        private Resolved(Dataset<Row> rows, int width, RowReader reader) {
            this.rows = rows;
            this.width = width;
            this.reader = reader;
        }
    }

    private final String idHeader;
    private final String idColumn;
    private final Column idExpression;
    private final RowReader.OwnerKind ownerKind;
    private final String[] ownerColumns;
    private final Column ownerExpression;
    private final Column eventTime;
    /** Without {@link #eventTime}: whether to take the source's timestamp column when the Dataset has one. */
    private final boolean sourceEventTime;

    /**
     * Exactly one of the id's sources is set; so are the owner's columns or its expression, as the kind says. With
     * {@code sourceEventTime} and no {@code eventTime}, the event time is the source's timestamp column ({@link
     * #sourceEventTime}), if the Dataset has it.
     */
    ClaimColumns(
            String idHeader,
            String idColumn,
            Column idExpression,
            RowReader.OwnerKind ownerKind,
            String[] ownerColumns,
            Column ownerExpression,
            Column eventTime,
            boolean sourceEventTime) {
        this.idHeader = idHeader;
        this.idColumn = idColumn;
        this.idExpression = idExpression;
        this.ownerKind = ownerKind;
        this.ownerColumns = ownerColumns.clone();
        this.ownerExpression = ownerExpression;
        this.eventTime = eventTime;
        this.sourceEventTime = sourceEventTime;
    }

    /**
     * The source's timestamp column for the owner's kind, when {@code input} has it as a timestamp: the Kafka
     * source's {@code timestamp}, the Kinesis source's {@code approximateArrivalTimestamp}; else null.
     */
    private Column sourceEventTime(StructType input) {
        String name = ownerKind == RowReader.OwnerKind.KAFKA
                ? "timestamp"
                : ownerKind == RowReader.OwnerKind.KINESIS ? "approximateArrivalTimestamp" : null;
        int at = name == null ? -1 : index(input, name);
        return at >= 0 && input.fields()[at].dataType() instanceof TimestampType ? col(name) : null;
    }

    /** @throws IllegalArgumentException when the Dataset lacks a column the settings name, naming it */
    Resolved resolve(Dataset<Row> rows) {
        StructType input = rows.schema();
        int width = input.fields().length;
        for (String ours : new String[] {ID_COLUMN, OWNER_COLUMN, EVENT_TIME_COLUMN}) {
            if (index(input, ours) >= 0) { // as Spark matches names: withColumn would replace it in place
                throw new IllegalArgumentException(
                        "the Dataset has a column " + ours + ", a name the transform keeps for itself");
            }
        }
        Dataset<Row> claimed = rows;
        int next = width;

        String idName;
        int idIndex;
        if (idHeader != null) {
            idIndex = requireHeaders(input);
            idName = "header " + idHeader;
        } else {
            Column id = idColumn != null ? col(requireColumn(input, idColumn, "id")) : idExpression;
            claimed = withColumn(claimed, ID_COLUMN, id.cast(DataTypes.StringType), "id");
            idName = idColumn != null ? "column " + idColumn : "the id expression " + idExpression;
            idIndex = next++;
        }

        int[] ownerIndexes;
        String[] ownerNames;
        if (ownerKind == RowReader.OwnerKind.COLUMN) {
            claimed = withColumn(claimed, OWNER_COLUMN, ownerExpression.cast(DataTypes.StringType), "owner");
            ownerIndexes = new int[] {next++};
            ownerNames = new String[] {"the owner expression " + ownerExpression};
        } else {
            ownerIndexes = new int[ownerColumns.length];
            ownerNames = ownerColumns.clone();
            for (int i = 0; i < ownerColumns.length; i++) {
                ownerIndexes[i] = index(input, requireColumn(input, ownerColumns[i], "owner"));
                requireOwnerType(input.fields()[ownerIndexes[i]], i);
            }
        }

        int eventTimeIndex = -1;
        Column time = eventTime != null ? eventTime : sourceEventTime ? sourceEventTime(input) : null;
        if (time != null) {
            claimed = withEventSeconds(claimed, time);
            eventTimeIndex = next;
        }
        return new Resolved(
                claimed,
                width,
                new RowReader(idHeader, idName, idIndex, ownerKind, ownerIndexes, ownerNames, eventTimeIndex));
    }

    /** The event time as whole epoch seconds: a timestamp or a date is converted, a number taken as seconds. */
    private static Dataset<Row> withEventSeconds(Dataset<Row> rows, Column eventTime) {
        Dataset<Row> probe = withColumn(rows, EVENT_TIME_COLUMN, eventTime, "eventTime");
        DataType type = probe.schema().apply(EVENT_TIME_COLUMN).dataType();
        if (type instanceof TimestampType) { // an instant: its second is the same in every session time zone
            return withColumn(rows, EVENT_TIME_COLUMN, unix_timestamp(eventTime), "eventTime");
        }
        if (type instanceof IntegralType) {
            return withColumn(rows, EVENT_TIME_COLUMN, eventTime.cast(DataTypes.LongType), "eventTime");
        }
        throw new IllegalArgumentException("eventTime: " + eventTime + " is a " + type.simpleString()
                + "; give a timestamp or whole epoch seconds (a date or a timestamp without time zone would"
                + " give each session time zone another second)");
    }

    private static Dataset<Row> withColumn(Dataset<Row> rows, String name, Column value, String setting) {
        try {
            return rows.withColumn(name, value);
        } catch (Exception e) { // Spark's AnalysisException: a column the expression names is not there
            throw new IllegalArgumentException(
                    setting + ": " + value + " cannot be read from this Dataset ("
                            + String.join(", ", rows.schema().fieldNames()) + "): " + e.getMessage(),
                    e);
        }
    }

    /**
     * The owner's columns must be of the types the source gives them, so that no task fails on a cast: Kafka's topic
     * a string and its partition and offset whole numbers; Kinesis' three strings (the sequence number may also be a
     * decimal or a whole number).
     */
    private void requireOwnerType(StructField field, int part) {
        DataType type = field.dataType();
        boolean kafka = ownerKind == RowReader.OwnerKind.KAFKA;
        boolean text = kafka ? part == 0 : true;
        boolean ok = text
                ? type instanceof StringType
                        || !kafka && part == 2 && (type instanceof IntegralType || type instanceof DecimalType)
                : type instanceof IntegralType;
        if (!ok) {
            throw new IllegalArgumentException("owner: column " + field.name() + " is a " + type.simpleString()
                    + ", where the " + (kafka ? "Kafka" : "Kinesis") + " source gives "
                    + (text ? "a string" : "a whole number"));
        }
    }

    /** The Kafka source's {@code headers} column (read with {@code includeHeaders}), or a clear refusal. */
    private int requireHeaders(StructType input) {
        int i = index(input, "headers");
        boolean kafkaShaped = false;
        if (i >= 0 && input.fields()[i].dataType() instanceof ArrayType) {
            DataType element = ((ArrayType) input.fields()[i].dataType()).elementType();
            if (element instanceof StructType) {
                StructField[] kv = ((StructType) element).fields();
                kafkaShaped = kv.length == 2
                        && kv[0].dataType() instanceof StringType
                        && kv[1].dataType() instanceof BinaryType;
            }
        }
        if (!kafkaShaped) {
            throw new IllegalArgumentException("idFromHeader(\"" + idHeader + "\"): the Dataset has "
                    + (i < 0 ? "no column headers" : "a column headers that is not the Kafka source's")
                    + " (columns: " + String.join(", ", input.fieldNames())
                    + "); read the Kafka source with option(\"includeHeaders\", \"true\")");
        }
        return i;
    }

    /** The name of the column the Dataset has, matched as Spark matches names (case-insensitively), or a refusal. */
    private static String requireColumn(StructType input, String name, String setting) {
        int i = index(input, name);
        if (i < 0) {
            throw new IllegalArgumentException(setting + ": the Dataset has no column " + name + " (columns: "
                    + String.join(", ", input.fieldNames()) + ")");
        }
        return input.fieldNames()[i];
    }

    /** The position of a column: its exact name first, then Spark's case-insensitive match; -1 when none. */
    static int index(StructType input, String name) {
        String[] names = input.fieldNames();
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        for (int i = 0; i < names.length; i++) {
            if (names[i].equalsIgnoreCase(name)) {
                return i;
            }
        }
        return -1;
    }
}
