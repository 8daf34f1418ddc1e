package io.walden.jraft;

import com.alipay.sofa.jraft.conf.ConfigurationManager;
import com.alipay.sofa.jraft.entity.codec.v2.LogEntryV2CodecFactory;
import com.alipay.sofa.jraft.option.LogStorageOptions;

/** Options to open a log storage outside a node, as jraft's tests make them. */
final class JraftTestOptions {
    private JraftTestOptions() {}

    /** @return options with a new configuration manager and jraft's v2 codec. */
    static LogStorageOptions storageOptions() {
        return storageOptions(new ConfigurationManager());
    }

    /** @return options with a configuration manager and jraft's v2 codec. */
    static LogStorageOptions storageOptions(final ConfigurationManager configurations) {
        final LogStorageOptions options = new LogStorageOptions();
        options.setConfigurationManager(configurations);
        options.setLogEntryCodecFactory(LogEntryV2CodecFactory.getInstance());
        options.setGroupId("group001");
        return options;
    }
}
